"""Headers on every response of the site, pages, JSON, static files, errors and event streams
alike (issue 43): scripts, styles and fetches only from the site itself, no plugins, no framing
(clickjacking), no MIME sniffing (a bot's output served as JSON or text is never read as HTML).

Style attributes are allowed (``style-src-attr``), not style elements: a board's SVG carries its
own ``min-width``, computed per board, on the server and in ``boards.js`` alike; an attribute
can set a style, never run a script or load from elsewhere (``img-src`` still holds)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),  # frame-ancestors, for browsers that predate it
    (b"referrer-policy", b"same-origin"),
]


def security_headers(app: ASGIApp) -> ASGIApp:
    """``app`` with ``HEADERS`` added to the start of every HTTP response."""

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *HEADERS]}
            await send(message)

        await app(scope, receive, send_guarded)

    return guarded
