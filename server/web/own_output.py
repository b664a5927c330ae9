"""What the signed-in author's own bots printed on stderr at a step of a replay.

The match page and its step API are public; beside a step they add, for a viewer whose console
session is signed in, the per-step stderr of that author's seats (``ladder.step_output``). It is
read through the Admin API with the author's own token (``GetMatch``), so the server's rules
decide what shows: a seat's log only for its bot's owner, and nothing of a match while a match
sharing its seed is not over (``ladder.secrecy``). Nobody signed in: nothing is asked.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from kingmaker.server.visible_text import visible
from kingmaker.server.web.console.client import ConsoleClient, ConsoleError
from kingmaker.server.web.console.sessions import SessionStore
from kingmaker.v1 import admin_pb2


def own_output(
    client: ConsoleClient | None, sessions: SessionStore, request: Request, match_id: int, step: int
) -> dict[str, Any] | None:
    """For a signed-in viewer, ``{"author", "seats": [{seat, bot, text, bytes, cut}], "note"}``
    for step ``step`` (the output while answering decision ``step - 1``); None otherwise."""
    session = sessions.get(request)
    if client is None or session is None or session.token is None:
        return None
    shown: dict[str, Any] = {"author": session.author, "seats": [], "note": ""}
    try:
        record = client.call("GetMatch", admin_pb2.GetMatchRequest(match_id=str(match_id)), session.token)
    except ConsoleError as error:
        shown["note"] = f"your bots' output could not be read: {error}"
        return shown
    if not record.revealed:
        shown["note"] = "your bots' output shows once the match's secrets do"
        return shown
    for log in record.seat_logs:  # the server sends the seats of the caller's own bots only
        for printed in log.steps:
            if printed.decision == step - 1:
                cut = len(printed.text.encode()) < printed.bytes
                text = visible(printed.text)  # the page's script shows it as it is
                seat = {"seat": log.seat, "bot": log.bot, "text": text, "bytes": printed.bytes}
                shown["seats"].append({**seat, "cut": cut})
    return shown
