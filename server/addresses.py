"""Addresses as the command line takes them, parsed and checked in one place.

`serve --address`, `--server` of every client command (and `$KINGMAKER_SERVER`), `serve
--ray-address`, and the website's host (`web --host`, `serve --web-host`) all come through here,
so a bad one is refused in one line before anything starts. gRPC itself would not refuse it:
it reads `127.0.0.1:99999` as port 34463 (99999 mod 2^16), `:65536` as a free port and `:-1` as
65535, and listens there.

Forms: `HOST:PORT` (a host name or an IPv4 address), `[IPV6]:PORT` (`[::1]:50051`) and
`unix:PATH` (a Unix socket). Ports are 1 to 65535; a server may also listen on port 0 (a free one,
which it then prints). Standard library only: the command line imports this on every start.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass

MAX_PORT = 65535
MAX_SOCKET_PATH = 107
"""Bytes of a Unix socket's path: ``sun_path`` holds 108, with the terminating NUL."""
FORMS = "HOST:PORT (e.g. 127.0.0.1:50051), [IPV6]:PORT or unix:PATH"
TCP_FORMS = "HOST:PORT or [IPV6]:PORT"

_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_DOTTED = re.compile(r"[0-9.]+")


class AddressError(ValueError):
    """Not an address this command can use; the message says why, in one line."""


@dataclass(frozen=True)
class Address:
    host: str = ""
    """A host name, or an IP address (IPv6 without its brackets); empty for a Unix socket."""
    port: int = 0
    path: str = ""
    """A Unix socket's path; empty for a TCP address."""

    def __str__(self) -> str:
        """The address as gRPC takes it."""
        if self.path:
            return f"unix:{self.path}"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_address(text: str, *, listening: bool = False, unix: bool = True) -> Address:
    """``text`` as an address, or ``AddressError``. ``listening``: a server's own address, which
    may ask for port 0; ``unix``: whether a Unix socket will do."""
    if text.startswith("unix:"):
        if not unix:
            raise AddressError(f"{text!r}: this must be a TCP address, {TCP_FORMS}")
        return Address(path=_socket_path(text, text.removeprefix("unix:")))
    if "://" in text:
        raise AddressError(f"{text!r}: write the address without a scheme: {FORMS}")
    host, colon, port = text.rpartition(":")
    if not colon or (text.startswith("[") and text.endswith("]")):
        raise AddressError(f"{text!r} has no port: it must be {FORMS if unix else TCP_FORMS}")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise AddressError(f"{text!r}: an IPv6 address goes in brackets, as in [::1]:50051")
    number = _port(text, port, listening)
    if host.startswith("["):
        inside = host[1:-1]
        if not _is_ipv6(inside):
            raise AddressError(f"{text!r}: {inside!r} in brackets is not an IPv6 address")
        return Address(host=inside, port=number)
    return Address(host=_host(text, host), port=number)


def check_host(text: str) -> str:
    """A host to listen on (no port): a name, an IPv4 address, or an IPv6 one (no brackets)."""
    if _is_ipv6(text):
        return text
    return _host(text, text)


def _host(text: str, host: str) -> str:
    if not host:
        raise AddressError(f"{text!r} has no host: write {FORMS} (0.0.0.0 or [::] for every interface)")
    if _DOTTED.fullmatch(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise AddressError(f"{text!r}: {host!r} is not an IPv4 address") from None
        return host
    name = host.removesuffix(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in name.split(".")):
        raise AddressError(f"{text!r}: {host!r} is not a host name or an IP address")
    return host


def _port(text: str, port: str, listening: bool) -> int:
    low = 0 if listening else 1
    if not (port.isascii() and port.isdigit()) or not low <= int(port) <= MAX_PORT:
        free = " (0: a free port)" if listening else ""
        raise AddressError(
            f"{text!r}: the port must be a number from {low} to {MAX_PORT}{free}, not {port!r}"
        )
    return int(port)


def _socket_path(text: str, path: str) -> str:
    if not path:
        raise AddressError(f"{text!r} has no socket path: write unix:PATH, as in unix:/tmp/kingmaker.sock")
    if "\0" in path:
        raise AddressError(f"{text!r}: a socket path cannot hold a NUL byte")
    size = len(os.fsencode(path))
    if size > MAX_SOCKET_PATH:
        raise AddressError(
            f"{text!r}: the socket path is {size} bytes long, more than the {MAX_SOCKET_PATH} "
            "a Unix socket allows"
        )
    return path


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True
