"""Issue 23, item 2: in a duplicate league the twins share a seed. Once one twin had finished, its
page and ``/api/matches/ID`` showed the seed and the full-state replay (the Kingdoms supply, every
draw to come) while the other twin was still being played. Now nothing derived from the seed shows
on any page or JSON endpoint until every match sharing it is over; results do (the ratings moved)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import events, play_and_record

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.live import LiveHub
from kingmaker.server.web.serve import BackgroundWebServer

BOTS = ("ada", "brick")


@pytest.fixture
def twins(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A duplicate Kingdoms league: the first twin played and stored, the second held running."""
    db = open_database(f"sqlite:///{tmp_path / 'twins.db'}")
    for name in BOTS:
        register_bot(db, name, ["kingdoms"])
    league = create_league(db, "dup", "kingdoms", list(BOTS), players=2, duplicate=True, seed=4)
    first, second = next_matches(db, league.id, 2)
    assert first.seed == second.seed and first.bot_ids == second.bot_ids[::-1]
    play_and_record(db, first, seed=1)
    mark_running(db, second.match_id)
    site = BackgroundWebServer(db, live=LiveHub())
    try:
        yield {"db": db, "url": site.url, "first": first, "second": second}
    finally:
        site.stop()
        db.close()


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def every_page(url: str, match_id: int) -> dict[str, tuple[int, str]]:
    paths = [
        f"/matches/{match_id}",
        f"/matches/{match_id}?step=3&view=full",
        f"/matches/{match_id}?step=3&view=seat:0",
        f"/api/matches/{match_id}",
        f"/api/matches/{match_id}/steps/0",
        f"/api/matches/{match_id}/steps/3?view=full",
        f"/api/matches/{match_id}/steps/3?view=seat:1",
        "/leagues/dup",
        "/api/leagues/dup",
        *(f"/bots/{bot}" for bot in BOTS),
        *(f"/api/bots/{bot}" for bot in BOTS),
        "/standings/kingdoms",
        "/api/standings/kingdoms",
    ]
    return {path: fetch(url + path) for path in paths}


def test_a_finished_twin_shows_nothing_of_its_seed_while_the_other_twin_plays(twins: dict[str, Any]) -> None:
    db, url, first, second = twins["db"], twins["url"], twins["first"], twins["second"]
    pages = every_page(url, first.match_id)
    for path, (status, body) in pages.items():
        # No seed, no replay outline (its number of steps), no board of any step, no full state.
        assert str(first.seed) not in body and '"steps"' not in body, path
        assert "supply (hidden from the seats)" not in body and 'id="replay"' not in body, path
        assert "<svg" not in body or "/bots/" in path, path  # a bot page plots ratings, no board
        if "/steps/" in path:
            assert status == 404 and "is not over" in json.loads(body)["error"], path
        else:
            assert status == 200, (path, body[:300])
    stream = events(f"{url}/leagues/dup/events")  # the league page's pushed part, as it comes
    kind, fragment, _ = next(stream)
    stream.close()
    assert kind == "update" and f"/matches/{second.match_id}" in str(fragment)  # in play
    assert str(first.seed) not in str(fragment) and "<svg" not in str(fragment)
    data = json.loads(pages[f"/api/matches/{first.match_id}"][1])
    assert data["seed"] is None and "is not over" in data["replay"]["unavailable"]
    assert data["secrets"] == {"shown": False, "reason": data["replay"]["unavailable"]}
    assert [seat["score"] is not None for seat in data["seats"]] == [True, True]  # its result shows
    page = pages[f"/matches/{first.match_id}"][1]
    assert "is not over" in page and 'id="replay"' not in page
    # The running twin: its seats only.
    running = json.loads(fetch(f"{url}/api/matches/{second.match_id}")[1])
    assert running["seed"] is None and all(seat["score"] is None for seat in running["seats"])
    # Once the second twin is over too, both replays show, seed and all.
    play_and_record(db, second, seed=2, already_running=True)
    after = every_page(url, first.match_id)
    assert json.loads(after[f"/api/matches/{first.match_id}"][1])["seed"] == first.seed
    step = json.loads(after[f"/api/matches/{first.match_id}/steps/3?view=full"][1])
    assert step["step"] == 3 and step["secrets"]["supply"]


def test_a_running_match_whose_seed_a_waiting_match_shares_has_no_live_board(twins: dict[str, Any]) -> None:
    db, url = twins["db"], twins["url"]
    league = create_league(db, "dup2", "kingdoms", list(BOTS), players=2, duplicate=True, seed=9)
    first, second = next_matches(db, league.id, 2)
    mark_running(db, first.match_id)  # its twin waits, scheduled: its draws would be the same
    [(kind, data, _)] = list(events(f"{url}/api/matches/{first.match_id}/live"))
    assert kind == "hidden" and "is not over" in data["text"]  # type: ignore[index]
    status, body = fetch(f"{url}/matches/{first.match_id}")
    assert status == 200 and str(first.seed) not in body and second.match_id
