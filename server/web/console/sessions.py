"""The console's sessions: a random id in a cookie (HttpOnly, SameSite=Strict, Secure when the
site is reached over TLS), the author's token and a CSRF token kept on the server, never in the
cookie. Every POST must carry its session's CSRF token (``check_csrf``); signing in starts a new
session (a fixed id is never promoted), signing out ends it."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "kingmaker_console"
LIFETIME_SECONDS = 12 * 3600
"""A session ends this long after it began, however active."""
ANONYMOUS_LIFETIME_SECONDS = 3600
"""A visitor's sign-in form stays good this long."""
MAX_ANONYMOUS_SESSIONS = 10_000
"""Visitors not signed in kept at once; beyond this the oldest of them are forgotten (their form
goes stale: a reload gives a new one). Sessions live in the server's memory only."""
MAX_SESSIONS_PER_AUTHOR = 20
"""An author's signed-in sessions at once (browsers, machines); beyond this their oldest ends."""


@dataclass
class Session:
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    token: str | None = None
    """The author's token, once signed in."""
    author: str = ""
    guest: str = ""
    """A guest's name (docs/play.md): a visitor who plays at /play and has no token."""
    started: float = field(default_factory=time.monotonic)
    notice: str = ""
    """One message for the next page (then cleared): what the last form did."""


class CsrfRefused(Exception):
    """A POST without its session's CSRF token (or with another): refused, nothing done."""


class SessionStore:
    def __init__(self) -> None:
        self._anonymous: OrderedDict[str, Session] = OrderedDict()
        """Oldest first."""
        self._signed_in: dict[str, Session] = {}
        """Oldest first (a dict keeps the order of insertion)."""
        self._lock = threading.Lock()

    def get(self, request: Request) -> Session | None:
        sid = request.cookies.get(COOKIE, "")
        with self._lock:
            pool = self._signed_in if sid in self._signed_in else self._anonymous
            session = pool.get(sid)
            if session is not None and _expired(session, time.monotonic()):
                del pool[sid]
                return None
            return session

    def start(self, response: Response, request: Request, session: Session | None = None) -> Session:
        """A new session (a new id, whatever came before) set as the response's cookie: signed in
        if it holds a token, else one of the anonymous pool."""
        session = session or Session()
        sid = secrets.token_urlsafe(32)
        with self._lock:
            old = request.cookies.get(COOKIE, "")
            self._anonymous.pop(old, None)
            self._signed_in.pop(old, None)
            if session.token is None:
                while len(self._anonymous) >= MAX_ANONYMOUS_SESSIONS:
                    self._anonymous.popitem(last=False)
                self._anonymous[sid] = session
            else:
                self._make_room_for(session.author)
                self._signed_in[sid] = session
        lifetime = LIFETIME_SECONDS if session.token is not None else ANONYMOUS_LIFETIME_SECONDS
        response.set_cookie(
            COOKIE, sid, max_age=lifetime, path="/", httponly=True, samesite="strict",
            secure=_over_tls(request),
        )  # fmt: skip
        return session

    def end(self, response: Response, request: Request) -> None:
        with self._lock:
            sid = request.cookies.get(COOKIE, "")
            self._anonymous.pop(sid, None)
            self._signed_in.pop(sid, None)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=_over_tls(request))

    def signed_out(self, author: str) -> None:
        """End every session of this author (their token changed: the old one is dead)."""
        with self._lock:
            for sid in [sid for sid, known in self._signed_in.items() if known.author == author]:
                del self._signed_in[sid]

    def _make_room_for(self, author: str) -> None:
        """Forget expired signed-in sessions, and this author's oldest beyond their bound (under
        the lock; a sign-in is rare and limited per address, so a pass over them is cheap)."""
        now = time.monotonic()
        for sid in [sid for sid, known in self._signed_in.items() if _expired(known, now)]:
            del self._signed_in[sid]
        theirs = [sid for sid, known in self._signed_in.items() if known.author == author]
        for sid in theirs[: max(0, len(theirs) - MAX_SESSIONS_PER_AUTHOR + 1)]:
            del self._signed_in[sid]


def check_csrf(session: Session | None, offered: str) -> None:
    if session is None or not offered or not hmac.compare_digest(offered.encode(), session.csrf.encode()):
        raise CsrfRefused("the form is stale or not this site's (no valid CSRF token): reload the page")


def _expired(session: Session, now: float) -> bool:
    lifetime = LIFETIME_SECONDS if session.token is not None else ANONYMOUS_LIFETIME_SECONDS
    return now - session.started > lifetime


def _over_tls(request: Request) -> bool:
    """Reached over TLS: directly, or through a proxy that says so (uvicorn's proxy headers)."""
    return request.url.scheme == "https"
