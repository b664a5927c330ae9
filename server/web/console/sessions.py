"""The console's sessions: a random id in a cookie (HttpOnly, SameSite=Strict, Secure when the
site is reached over TLS), the author's token and a CSRF token kept on the server, never in the
cookie. Every POST must carry its session's CSRF token (``check_csrf``); signing in starts a new
session (a fixed id is never promoted), signing out ends it."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "kingmaker_console"
LIFETIME_SECONDS = 12 * 3600
"""A session ends this long after it began, however active."""
MAX_SESSIONS = 10_000
"""Beyond this many, the oldest are forgotten (sessions live in the server's memory only)."""


@dataclass
class Session:
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    token: str | None = None
    """The author's token, once signed in."""
    author: str = ""
    started: float = field(default_factory=time.monotonic)
    notice: str = ""
    """One message for the next page (then cleared): what the last form did."""


class CsrfRefused(Exception):
    """A POST without its session's CSRF token (or with another): refused, nothing done."""


class SessionStore:
    def __init__(self) -> None:
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def get(self, request: Request) -> Session | None:
        sid = request.cookies.get(COOKIE, "")
        with self._lock:
            session = self._sessions.get(sid)
            if session is not None and time.monotonic() - session.started > LIFETIME_SECONDS:
                del self._sessions[sid]
                return None
            return session

    def start(self, response: Response, request: Request, session: Session | None = None) -> Session:
        """A new session (a new id, whatever came before) set as the response's cookie."""
        session = session or Session()
        sid = secrets.token_urlsafe(32)
        with self._lock:
            old = request.cookies.get(COOKIE, "")
            self._sessions.pop(old, None)
            if len(self._sessions) >= MAX_SESSIONS:
                oldest = min(self._sessions, key=lambda known: self._sessions[known].started)
                del self._sessions[oldest]
            self._sessions[sid] = session
        response.set_cookie(
            COOKIE, sid, max_age=LIFETIME_SECONDS, path="/", httponly=True, samesite="strict",
            secure=_over_tls(request),
        )  # fmt: skip
        return session

    def end(self, response: Response, request: Request) -> None:
        with self._lock:
            self._sessions.pop(request.cookies.get(COOKIE, ""), None)
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict", secure=_over_tls(request))

    def signed_out(self, author: str) -> None:
        """End every session of this author (their token changed: the old one is dead)."""
        with self._lock:
            for sid in [sid for sid, known in self._sessions.items() if known.author == author]:
                del self._sessions[sid]


def check_csrf(session: Session | None, offered: str) -> None:
    if session is None or not offered or not hmac.compare_digest(offered.encode(), session.csrf.encode()):
        raise CsrfRefused("the form is stale or not this site's (no valid CSRF token): reload the page")


def _over_tls(request: Request) -> bool:
    """Reached over TLS: directly, or through a proxy that says so (uvicorn's proxy headers)."""
    return request.url.scheme == "https"
