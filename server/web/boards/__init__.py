"""The board of each game drawn as SVG from observations (plain data), for the replay viewer.

``draw_board(game, views, viewer, bots, secrets)``: ``views`` holds every seat's observation;
``viewer`` is the seat whose view to draw (only what ``views[viewer]`` holds is used), or None for
the full state (every seat's view at once, and the ``secrets`` no seat saw). A spectator of a live
match is ``SPECTATOR`` with ``views`` holding the game's spectator view alone (``Game.spectate``):
like a seat that is none of the players, it is drawn every seat's private part as hidden. One
module per game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingmaker.server.web.boards import kingdoms, kings_road, kingsburg, kingsville
from kingmaker.server.web.boards.svg import document, text

SPECTATOR = -1
"""The viewer of a live match: ``views`` is ``(spectator view,)``, and ``views[SPECTATOR]`` is it."""

Drawer = Callable[[tuple[Any, ...], int | None, tuple[str, ...], dict[str, Any]], str]

_DRAWERS: dict[str, Drawer] = {
    "kingdoms": kingdoms.draw,
    "kingsburg": kingsburg.draw,
    "kings_road": kings_road.draw,
    "kingsville": kingsville.draw,
}


def draw_board(
    game: str, views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...], secrets: dict[str, Any]
) -> str:
    """The board as an SVG document; a short note for a game without a drawer."""
    drawer = _DRAWERS.get(game)
    if drawer is None:
        return document(300, 20, [text(0, 14, f"no board for {game}")], game)
    return drawer(views, viewer, bots, secrets)


def draw_spectator_board(game: str, view: Any, bots: tuple[str, ...]) -> str:
    """The board of a live match as a spectator sees it (``view``: the spectator view as plain data)."""
    return draw_board(game, (view,), SPECTATOR, bots, {})
