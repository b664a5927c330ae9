"""One step of a replay as a viewer sees it: the data the match page renders on the server (a link
to a moment, ``/matches/ID?step=N&view=seat:K``) and the JSON API returns for the viewer's script.

A view is ``full`` (every seat's view at once and what no seat could see) or ``seat:K`` (only what
seat K was shown, and the chance it saw). The API also takes its older spellings, ``all`` and a
bare seat number.
"""

from __future__ import annotations

from typing import Any

from kingmaker.server.web.boards import draw_board
from kingmaker.server.web.replay import Frame, Replay

FULL = "full"


class BadView(ValueError):
    """A view that is not ``full`` or ``seat:K`` with K a seat of the match."""


def parse_view(text: str, seats: int) -> int | None:
    """The seat whose view ``text`` names, or None for the full state."""
    if text in (FULL, "all"):
        return None
    number = text.removeprefix("seat:")
    if number.isdigit() and int(number) < seats:
        return int(number)
    raise BadView(f"view must be full or seat:0 to seat:{seats - 1}, not {text[:40]!r}")


def view_name(viewer: int | None) -> str:
    return FULL if viewer is None else f"seat:{viewer}"


def step_data(replay: Replay, frame: Frame, viewer: int | None) -> dict[str, Any]:
    """One step as the viewer saw it: a seat's view holds its own observation and the chance it saw."""
    seen = [event for event in frame.chance if viewer is None or event.seats is None or viewer in event.seats]
    return {
        "match_id": replay.match_id,
        "game": replay.game,
        "step": frame.step,
        "steps": len(replay.frames) - 1,
        "view": "all" if viewer is None else viewer,
        "view_name": view_name(viewer),
        "bots": list(replay.bots),
        "moves": [
            {"seat": m.seat, "bot": m.bot, "action": m.action, "data": m.data, "ms": m.ms, "source": m.source}
            for m in frame.moves
        ],
        "chance": [{"text": event.text, "seats": event.seats} for event in seen],
        "scores": list(frame.scores),
        "score_name": replay.score_name,
        "to_act": list(frame.to_act),
        "observations": list(frame.observations) if viewer is None else [frame.observations[viewer]],
        "secrets": frame.secrets if viewer is None else {},
        "final": {"scores": list(replay.final_scores), "ranks": list(replay.final_ranks)}
        if frame.step == len(replay.frames) - 1
        else None,
        "svg": draw_board(replay.game, frame.observations, viewer, replay.bots, frame.secrets),
    }


def replay_outline(replay: Replay) -> dict[str, Any]:
    return {
        "steps": len(replay.frames) - 1,
        "final_scores": list(replay.final_scores),
        "final_ranks": list(replay.final_ranks),
        "recorded_scores": list(replay.recorded_scores),
        "score_name": replay.score_name,
    }
