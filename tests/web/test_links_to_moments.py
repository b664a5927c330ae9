"""Links to moments (issue 28): ``/matches/ID?step=N&view=full|seat:K`` is rendered on the server,
so the page holds the board of step N without any script (read here as plain HTML, no browser),
as that view sees it; out-of-range steps and unknown views get one line and a 400."""

from __future__ import annotations

import html
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from web_support import one_match

from kingmaker.games import serial
from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.web.serve import BackgroundWebServer

BOTS = ("ada", "brick", "cyd")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    db = open_database(f"sqlite:///{tmp_path_factory.mktemp('moments') / 'ladder.db'}")
    for name in BOTS:
        register_bot(db, name, ["kingdoms"])
    match_id = one_match(db, "kingdoms", BOTS, seed=21)
    web = BackgroundWebServer(db)
    try:
        yield {"db": db, "url": web.url, "match": match_id, "log": match_log(db, match_id)}
    finally:
        web.stop()
        db.close()


def page(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def engine_at(log: Any, step: int) -> Any:
    game = get_game(log.game)
    state = game.new(len(BOTS), log.seed, log.options)
    for joint in log.actions[:step]:
        state.apply({int(seat): serial.action_from_data(game.spec, data) for seat, data in joint.items()})
    return state


def first_draw(log: Any) -> tuple[int, int]:
    """(step, seat) just after the first tile drawn: only its drawer sees it then."""
    for step, joint in enumerate(log.actions, start=1):
        for seat, action in joint.items():
            if action["type"] == "DrawTile":
                return step, int(seat)
    raise AssertionError("no tile was drawn")


def test_a_link_to_a_step_holds_that_steps_board_without_script(site: dict[str, Any]) -> None:
    log, match_id = site["log"], site["match"]
    step = len(log.actions) // 2
    status, body = page(f"{site['url']}/matches/{match_id}?step={step}&view=full")
    assert status == 200
    assert f'<span id="step">{step}</span>' in body and f'data-shown="{step}/full"' in body
    board = engine_at(log, step).observation(0)
    drawn = {
        (int(r), int(c)): tile
        for r, c, tile in re.findall(
            r'<g class="box cell" data-row="(\d)" data-column="(\d)"(?: data-tile="([^"]*)")?', body
        )
    }
    assert len(drawn) == 30
    for r, row in enumerate(board.board):
        for c, cell in enumerate(row.cells):
            assert drawn[(r, c)] == (html.escape(cell.tile.name) if cell.tile else ""), (r, c)
    moves = [
        json.loads(html.unescape(a))
        for a in re.findall(r'class="move" data-seat="\d" data-action="([^"]*)"', body)
    ]
    assert moves == list(log.actions[step - 1].values())
    # Without script the arrows are links to the next moments, in the same view.
    assert f'id="next" class="step-link" title="→" href="?view=full&amp;step={step + 1}"' in body
    assert f'id="prev" class="step-link" title="←" href="?view=full&amp;step={step - 1}"' in body


def test_a_seat_view_link_shows_only_that_seats_secrets(site: dict[str, Any]) -> None:
    log, match_id = site["log"], site["match"]
    step, drawer = first_draw(log)
    tile = engine_at(log, step).observation(drawer).drawn_tile.name
    other = (drawer + 1) % len(BOTS)
    _, mine = page(f"{site['url']}/matches/{match_id}?step={step}&view=seat:{drawer}")
    _, theirs = page(f"{site['url']}/matches/{match_id}?view=seat:{other}&step={step}")
    assert f"drawn: {html.escape(tile)}" in mine and f"drew {html.escape(tile)}" in mine
    assert f"drawn: {html.escape(tile)}" not in theirs and f"drew {html.escape(tile)}" not in theirs
    assert f'<option value="seat:{other}" selected>' in theirs and "supply (hidden" not in theirs
    _, full = page(f"{site['url']}/matches/{match_id}?step={step}")  # the full state by default
    assert "supply (hidden from the seats)" in full and '<option value="full" selected>' in full


def test_a_moment_out_of_range_or_an_unknown_view_is_one_line(site: dict[str, Any]) -> None:
    steps, match_id = len(site["log"].actions), site["match"]
    for query, words in (
        (f"step={steps + 1}", f"step must be from 0 to {steps}"),
        ("step=-1", "step must be from 0"),
        ("step=two", "step must be a whole number"),
        ("view=seat:3", "view must be full or seat:0 to seat:2"),
        ("view=everything", "view must be full or seat:0 to seat:2"),
        (f"view=seat:{'9' * 400}", "view must be full"),
    ):
        status, body = page(f"{site['url']}/matches/{match_id}?{query}")
        assert status == 400, query
        [message] = re.findall(r'<p class="error">(.*?)</p>', body, re.DOTALL)
        assert words in html.unescape(message) and "\n" not in message and len(message) < 200, query
    for path in (f"steps/{steps + 1}", "steps/0?view=seat:3", "steps/0?view=everything"):
        status, body = page(f"{site['url']}/api/matches/{match_id}/{path}")
        assert status == 400 and "\n" not in json.loads(body)["error"], path
    assert (
        json.loads(page(f"{site['url']}/api/matches/{match_id}/steps/1?view=seat:1")[1])["view_name"]
        == "seat:1"
    )
