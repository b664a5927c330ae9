"""Tries to open a TCP connection to 127.0.0.1 on a port it is given.

Usage: ``network_bot.py PORT``; reports ``connected`` or the errno of the failure
(ECONNREFUSED, ENETUNREACH, ...). It only ever tries the loopback address: the test opens a
listening port there and checks that nothing arrives.
"""

from __future__ import annotations

import socket
import sys

from kingmaker.sample_bots.hostile.common import errno_name, report


def main(port: int) -> None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            report("connected")
    except OSError as error:
        report(f"connect failed: {errno_name(error)}")


if __name__ == "__main__":
    main(int(sys.argv[1]))
