"""Each seat's score as the game stands, read from an observation (plain data): what the replay
viewer's score line shows at every step. At the end these are the game's final scores, except
Kingsville, whose end-of-game points are ``score_if_ended_now``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _kingdoms(view: dict[str, Any]) -> tuple[int, ...]:
    return tuple(player["gold"] for player in view["players"])


def _kingsburg(view: dict[str, Any]) -> tuple[int, ...]:
    return tuple(province["vp"] for province in view["provinces"])


def _kings_road(view: dict[str, Any]) -> tuple[int, ...]:
    return tuple(player["score"] for player in view["standings"])


def _kingsville(view: dict[str, Any]) -> tuple[int, ...]:
    return tuple(castle["score_if_ended_now"] for castle in view["castles"])


_READERS: dict[str, Callable[[dict[str, Any]], tuple[int, ...]]] = {
    "kingdoms": _kingdoms,
    "kingsburg": _kingsburg,
    "kings_road": _kings_road,
    "kingsville": _kingsville,
}


def running_scores(game: str, view: dict[str, Any]) -> tuple[int, ...]:
    """The scores in ``view`` (any seat's observation: scores are public); () for an unknown game."""
    reader = _READERS.get(game)
    return reader(view) if reader is not None else ()
