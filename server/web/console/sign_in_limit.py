"""How often one address may try to sign in to the console: ``ATTEMPTS`` in any
``WINDOW_SECONDS``, so author tokens cannot be guessed from one address (each try also costs the
server a call), and a refusal says when to try again. The addresses remembered are bounded: the
least recently seen are forgotten first (issue 43)."""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict, deque

from starlette.requests import Request

ATTEMPTS = 10
WINDOW_SECONDS = 60.0
MAX_ADDRESSES = 10_000


class TooManySignIns(Exception):
    """Refused: this address tried to sign in too often; ``retry_after`` seconds until it may again."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many sign-in attempts from this address: try again in {retry_after} s")
        self.retry_after = retry_after


class SignInLimit:
    def __init__(self) -> None:
        self._tries: OrderedDict[str, deque[float]] = OrderedDict()
        """Per address, the times of its attempts in the window; least recently seen first."""
        self._lock = threading.Lock()

    def attempt(self, request: Request) -> None:
        """Count one attempt from the request's address, or raise ``TooManySignIns``."""
        address, now = _address(request), time.monotonic()
        with self._lock:
            tries = self._tries.pop(address, None) or deque()
            while tries and now - tries[0] >= WINDOW_SECONDS:
                tries.popleft()
            self._tries[address] = tries
            while len(self._tries) > MAX_ADDRESSES:
                self._tries.popitem(last=False)
            if len(tries) >= ATTEMPTS:
                raise TooManySignIns(max(1, math.ceil(WINDOW_SECONDS - (now - tries[0]))))
            tries.append(now)


def _address(request: Request) -> str:
    """The client's address (a proxy's word for it when uvicorn trusts the proxy); an IPv6 client
    counts as its /64, which one machine commonly holds whole."""
    host = request.client.host if request.client else ""
    try:
        parsed = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:  # an IPv4 client of a dual-stack socket: itself alone
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)
