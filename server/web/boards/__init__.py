"""The board of each game drawn as SVG from observations (plain data), for the replay viewer.

``draw_board(game, views, viewer, bots, secrets)``: ``views`` holds every seat's observation;
``viewer`` is the seat whose view to draw (only what ``views[viewer]`` holds is used), or None for
the full state (every seat's view at once, and the ``secrets`` no seat saw). A spectator of a live
match is ``SPECTATOR`` with ``views`` holding the game's spectator view alone (``Game.spectate``):
like a seat that is none of the players, it is drawn every seat's private part as hidden. One
module per game. A live board is drawn in the browser by ``static/boards.js``, the same rules
written again, to the same SVG (tests/web/test_boards_in_the_browser.py holds them equal).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingmaker.games.kings_road.data import REGIONS
from kingmaker.games.kingsburg.data import ADVISOR_NAMES
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


def board_facts(game: str) -> dict[str, Any]:
    """What the drawing of ``game``'s board prints that no view holds (the rules' own tables), as
    plain data for the browser's drawing of a live board (static/boards.js); public, the same in
    every match."""
    if game == "kings_road":
        regions = REGIONS.values()
        return {"regions": [{"number": r.number, "name": r.name, "roads": list(r.roads)} for r in regions]}
    if game == "kingsburg":
        return {"advisors": list(ADVISOR_NAMES), "buildings": list(kingsburg.BUILDINGS)}
    return {}


def draw_spectator_board(game: str, view: Any, bots: tuple[str, ...]) -> str:
    """The board of a live match as a spectator sees it (``view``: the spectator view as plain data)."""
    return draw_board(game, (view,), SPECTATOR, bots, {})
