"""A live board is drawn in the browser (issue 35: the server streams the spectator view, not a
drawing of it). static/boards.js writes the drawing rules of server/web/boards again; here, in
headless Chromium, it draws every game's spectator view along whole random games, for 2 to 5
seats and awkward bot names, and each drawing is the very SVG the server draws for a spectator."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import chromium_available

from kingmaker.games import serial
from kingmaker.games.registry import get_game
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.web.boards import board_facts, draw_spectator_board
from kingmaker.server.web.boards.svg import number
from kingmaker.server.web.serve import BackgroundWebServer

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")

NAMES = ("ada", "brick <&> 'quoted' \"bot\"", "a-long-bot-name-that-has-to-shrink-0123456789", "zoë", "e")
LOAD = """
const done = arguments[arguments.length - 1];
const script = document.createElement('script');
script.src = '/static/boards.js';
script.onload = () => done(true);
script.onerror = () => done(false);
document.head.append(script);
"""
DRAW = "return arguments[0].map(([game, view, bots, facts]) => KingmakerBoards.draw(game, view, bots, facts))"


@pytest.fixture(scope="module")
def page(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    db = open_database(f"sqlite:///{tmp_path_factory.mktemp('boards') / 'site.db'}")
    site = BackgroundWebServer(db)
    try:
        browser.get(site.url)
        assert browser.execute_async_script(LOAD) is True
        yield browser
    finally:
        site.stop()
        db.close()


def spectator_views(game_name: str, players: int, seed: int, most: int = 30) -> list[Any]:
    """Spectator views along a random game (about ``most``, evenly spread), and at its end."""
    game = get_game(game_name)
    assert game.spectate is not None
    state = game.new(players, seed)
    chooser = random.Random(seed)
    views = []
    while not state.is_over():
        views.append(serial.to_data(game.spectate(state)))
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    return [*views[:: max(1, len(views) // most)], serial.to_data(game.spectate(state))]


@pytest.mark.parametrize("game", ["kingdoms", "kings_road", "kingsburg", "kingsville"])
def test_the_browser_draws_a_spectators_board_as_the_server_does(page: Any, game: str) -> None:
    spec = get_game(game).spec
    cases = []
    for players in range(spec.min_players, spec.max_players + 1):
        bots = list(NAMES[:players])
        for view in spectator_views(game, players, seed=players * 7):
            cases.append((game, view, bots, board_facts(game)))
    drawn = page.execute_script(DRAW, cases)
    assert len(drawn) == len(cases) > 20
    for (_, view, bots, _), svg in zip(cases, drawn, strict=True):
        assert svg == draw_spectator_board(game, view, tuple(bots))


def test_a_game_without_a_drawer_gets_the_same_note(page: Any) -> None:
    [svg] = page.execute_script(DRAW, [("chess", {}, ["a", "b"], {})])
    assert svg == draw_spectator_board("chess", {}, ("a", "b"))


@pytest.mark.parametrize(
    "value", [0.25, 0.75, 1.25, -0.25, 0.15, 0.85, 2.5, 3.5, 412.96, 7.05, 0.05, 1e-9, 99.95, 37.0, -0.0]
)
def test_numbers_are_written_as_python_writes_them(page: Any, value: float) -> None:
    """Rounding to one decimal is Python's (half to even on the exact value), not toFixed's."""
    shown = page.execute_script(
        "return [KingmakerBoards.number(arguments[0]), KingmakerBoards.fixed(arguments[0], 0),"
        " KingmakerBoards.fixed(arguments[0], 1)];",
        value,
    )
    assert shown == [number(value), f"{value:.0f}", f"{value:.1f}"]
