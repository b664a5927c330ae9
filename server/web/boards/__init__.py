"""The board of each game drawn as SVG from observations (plain data), for the replay viewer.

``draw_board(game, views, viewer, bots, secrets)``: ``views`` holds every seat's observation;
``viewer`` is the seat whose view to draw (only what ``views[viewer]`` holds is used), or None for
the full state (every seat's view at once, and the ``secrets`` no seat saw). One module per game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingmaker.server.web.boards import kingdoms, kings_road, kingsburg, kingsville
from kingmaker.server.web.boards.svg import document, text

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
