"""What the benches read of other processes from /proc, and a free port for the servers they start."""

from __future__ import annotations

import os
import socket
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int, *, reaped_children: bool = False) -> float:
    """User + system CPU seconds of one process so far (all its threads), and with
    ``reaped_children`` its reaped children's too (0 then if the process is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        if reaped_children:
            return 0.0
        raise
    return sum(int(value) for value in fields[11 : 15 if reaped_children else 13]) / CLK_TCK


def free_port() -> int:
    """A loopback TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
