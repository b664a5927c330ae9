"""A spectator in headless Chromium opens a running match, sees its moves arrive on the board, and
the page reloads to the result when the match ends. Every response the page received is read back
from Chromium's own network log (DevTools ``Network`` events: each server-sent event's data, each
response's body), and none holds a hidden field: no seat's tile, no seed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from test_live_boards import Site, spectator_views
from web_support import chromium_available, start_chromium

from kingmaker.games import serial
from kingmaker.games.registry import get_game
from kingmaker.ladder.matches.history import match_summary
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.server import web

STATIC = Path(web.__file__).parent / "static"
pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")


LIVE_STATE = """
const live = document.getElementById('live');
if (!live) return ['reloaded', '', 0, []];
const cells = [...document.querySelectorAll('#board svg .cell')].map(
  (cell) => `${cell.dataset.tile || ''}|${cell.dataset.castle || ''}`);
return [live.dataset.state, live.dataset.step, document.querySelectorAll('#board svg').length, cells];
"""


class Received:
    """What the page got while the match ran, read from Chromium's network log as it comes (a
    body is asked for at once, while Chromium keeps it): the data of every server-sent event and
    the body of every other response, up to the reload that shows the finished match."""

    def __init__(self, site: str) -> None:
        self.site = site
        self.messages: list[str] = []
        self.bodies: list[str] = []
        self.documents = 0
        self.kinds: dict[str, str] = {}

    def read(self, browser: Any) -> None:
        for entry in browser.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            params = message.get("params", {})
            if message["method"] == "Network.responseReceived" and params["response"]["url"].startswith(
                self.site
            ):
                self.kinds[params["requestId"]] = params.get("type", "")
                self.documents += params.get("type") == "Document"
            if self.documents > 1:
                return  # the page after the match: its result, and its replay once allowed
            if message["method"] == "Network.eventSourceMessageReceived":
                self.messages.append(params["data"])
            elif message["method"] == "Network.loadingFinished":
                if self.kinds.get(params["requestId"], "EventSource") == "EventSource":
                    continue  # not the site's (the browser's own pages), or a stream: its data are above
                body = browser.execute_cdp_cmd("Network.getResponseBody", {"requestId": params["requestId"]})
                self.bodies.append(body["body"])


def hidden_values(db: Any, match_id: int) -> list[set[str]]:
    """After each decision, what no spectator may see then, by the seats' own views (not by the
    spectator view under test): the seed, and every tile a seat holds face down (a starting tile,
    a drawn tile) whose name the other seat's view does not show (tiles of one kind and value are
    identical, so another copy in view gives nothing away)."""
    log = match_log(db, match_id)
    game = get_game(log.game)
    state = game.new(2, log.seed, log.options)
    hidden: list[set[str]] = []
    for joint in [*log.actions, None]:
        views = [state.observation(seat) for seat in range(2)]
        secret = {str(log.seed)}
        for seat, view in enumerate(views):
            other = json.dumps(serial.to_data(views[1 - seat]))
            for tile in (view.starting_tile, view.drawn_tile):
                if tile is not None and f'"{tile.name}"' not in other:
                    secret.add(f'"{tile.name}"')
        hidden.append(secret)
        if joint is not None:
            state.apply({int(s): serial.action_from_data(game.spec, data) for s, data in joint.items()})
    return hidden


def board_cells(view: dict[str, Any]) -> list[str]:
    """The grid as the drawing marks it: each cell's tile and castle (owner:rank), row by row."""
    return [
        f"{cell['tile']['name'] if cell['tile'] else ''}|"
        + (f"{cell['castle']['owner']}:{cell['castle']['rank']}" if cell["castle"] else "")
        for row in view["board"]
        for cell in row["cells"]
    ]


def test_a_spectator_sees_moves_arrive_and_receives_nothing_hidden(worker_site: Site) -> None:
    browser = start_chromium(network_log=True)
    try:
        browser.execute_cdp_cmd("Network.enable", {})
        played = worker_site.league("show")
        match_id = worker_site.running_match("show")
        browser.get(f"{worker_site.url}/matches/{match_id}")
        seen: list[str] = []
        drawn: dict[int, list[str]] = {}
        got = Received(worker_site.url)
        deadline = time.monotonic() + 120
        # Moves arrive: the step the page shows goes up while the match plays, then it reloads.
        while time.monotonic() < deadline:
            got.read(browser)
            state = browser.execute_script(LIVE_STATE)
            if state[0] == "reloaded":
                break
            if state[0] == "live" and state[1] not in seen:
                assert state[2] == 1  # a board is drawn (in the browser, from the view)
                seen.append(state[1])
                drawn[int(state[1])] = state[3]
            time.sleep(0.05)
        played.result(timeout=120)
        steps = [int(step) for step in seen]
        assert len(steps) >= 3 and steps == sorted(steps), steps
        assert browser.find_element("id", "match-status").text == "finished"
        got.read(browser)
        messages, bodies = got.messages, got.bodies
    finally:
        browser.quit()
    frames = [json.loads(data) for data in messages if data.startswith('{"step"')]
    assert len(frames) >= len(steps) and len(frames) == sum(1 for data in messages if '"view"' in data)
    expected = spectator_views(worker_site.db, match_id)
    # The board drawn at each step the page showed is that step's: every tile and castle placed.
    assert len(drawn) >= 3
    for step, cells in drawn.items():
        assert cells == board_cells(expected[step]), step
    hidden = hidden_values(worker_site.db, match_id)
    assert sum(len(secret) > 1 for secret in hidden) > 0  # tiles were held face down: the check can fail
    for data, frame in zip([m for m in messages if m.startswith('{"step"')], frames, strict=True):
        assert frame["view"] == expected[frame["step"]]
        leaked = [secret for secret in hidden[frame["step"]] if secret in data]
        assert not leaked, (frame["step"], leaked)
    ever_hidden = set().union(*hidden)
    assert bodies and any("live.js" in body for body in bodies)  # the page, its script...
    # ... the site's own files (boards.js names King's Road's "Dragon" card: the same file for
    # every match, it holds no match's secret), and whatever else the page fetched.
    static = {path.read_text() for path in STATIC.iterdir()}
    assert any(body in static for body in bodies)
    for body in (body for body in bodies if body not in static):
        leaked = [secret for secret in ever_hidden if secret in body]
        assert not leaked, leaked
    assert match_summary(worker_site.db, match_id).status == "finished"
