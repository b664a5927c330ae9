"""Whether the server can listen on its address, asked before it makes anything.

``serve`` on an address it cannot bind must leave no home, database or admin token behind and
say why in one line (issue #32: it made all three, then asked "is another serve running?" of an
address that is not this machine's). The operating system is asked directly: a socket bound to
the address as gRPC would bind it (``SO_REUSEADDR``), then closed at once.

Standard library only: the command line asks this on every start.
"""

from __future__ import annotations

import errno
import os
import socket

from kingmaker.server.addresses import AddressError, parse_address

_WHY = {
    errno.EADDRINUSE: "the address is in use by another process (another kingmaker serve, or any other)",
    errno.EADDRNOTAVAIL: "{host} is not an address of this machine",
    errno.EACCES: "ports under 1024 need root or CAP_NET_BIND_SERVICE",
}


def bind_problem(address: str) -> str | None:
    """Why the server cannot listen on ``address``, in one line; None when it can (or when only
    gRPC can tell: a Unix socket)."""
    try:
        parsed = parse_address(address, listening=True)
    except AddressError as error:
        return f"cannot listen on {address}: {error}"
    if parsed.path:
        return None
    host, port = parsed.host, parsed.port
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return f"cannot listen on {address}: {host} is no name this machine knows ({error.strerror})"
    first: OSError | None = None
    for family, kind, protocol, _, where in found:
        try:
            with socket.socket(family, kind, protocol) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(where)
            return None  # gRPC listens where it can: one of the host's addresses will do
        except OSError as error:
            first = first or error
    assert first is not None
    said = _WHY.get(first.errno or 0, os.strerror(first.errno) if first.errno else str(first))
    return f"cannot listen on {address}: {said.format(host=host)}"
