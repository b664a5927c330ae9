"""League TV: a stream that follows a league (``/api/leagues/NAME/live``) shows one of its running
matches and, when it ends, the next, on the same connection; never a match its secrecy verdict
hides; an unknown league is 404; a finished league says so; and what runs is read once for all
of a league's followers, not once per follower."""

from __future__ import annotations

import asyncio
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_live_boards import GAME, Site
from web_support import events, play_and_record

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server.live import LiveHub
from kingmaker.server.web import league_live
from kingmaker.server.web.league_live import LeagueBoard, Pick
from kingmaker.server.web.serve import BackgroundWebServer


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(f"sqlite:///{tmp_path / 'tv.db'}")
    try:
        yield database
    finally:
        database.close()


@pytest.fixture
def site(db: Database) -> Iterator[str]:
    """The site with a live hub (no referee: no frames), over ``db``."""
    web = BackgroundWebServer(db, live=LiveHub())
    try:
        yield web.url
    finally:
        web.stop()


def test_a_league_followed_across_matches_on_one_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    served = Site(tmp_path, "local")
    try:
        served.create_league("tv", entrants=3, seed=3)  # three matches
        stream = events(f"{served.url}/api/leagues/tv/live")
        kind, _, _ = next(stream)
        assert kind == "idle"  # nothing runs yet
        played = served.play("tv")
        received = [kind_data for *kind_data, _ in stream]
        played.result(timeout=300)
    finally:
        served.stop()
    kinds = [kind for kind, _ in received]
    assert kinds[-1] == "finished" and "hidden" not in kinds
    matches = list_matches(served.db, league="tv")
    assert sorted(m.status for m in matches) == ["finished"] * 3
    by_id = {m.match_id: m for m in matches}
    # Every match in the order they were played, each named before its frames and ended after them.
    shown = [data["match_id"] for kind, data in received if kind == "match"]
    assert shown == sorted(by_id, key=lambda match_id: by_id[match_id].started_at or "")
    assert len(shown) == 3
    current: int | None = None
    frames: dict[int, list[int]] = {match_id: [] for match_id in shown}
    for kind, data in received:
        if kind == "match":
            assert current is None
            current = data["match_id"]
            assert data["bots"] == list(by_id[current].bots) and data["url"] == f"/matches/{current}"
        elif kind == "frame":
            assert current is not None and data["bots"] == list(by_id[current].bots)
            frames[current].append(data["step"])
        elif kind == "end":
            assert data == {"match_id": current, "status": "finished"}
            current = None
    assert current is None
    for match_id, steps in frames.items():
        assert len(steps) >= 2 and steps == sorted(set(steps)), (match_id, steps)


def test_a_hidden_match_is_never_shown_to_a_follower(db: Database, site: str) -> None:
    for name in ("ada", "brick"):
        register_bot(db, name, [GAME])
    league = create_league(db, "dup", GAME, ["ada", "brick"], players=2, duplicate=True, seed=4, rounds=2)
    first, twin, second, second_twin = next_matches(db, league.id, 4)
    assert first.seed == twin.seed and second.seed == second_twin.seed != first.seed
    mark_running(db, first.match_id)  # running longest, but its twin is still to be played: hidden
    play_and_record(db, second_twin, seed=2)
    mark_running(db, second.match_id)  # its twin is over: it may show
    stream = events(f"{site}/api/leagues/dup/live")
    try:
        received = [next(stream)[:2] for _ in range(2)]
        play_and_record(db, second, seed=3, already_running=True)
        for kind, data, _ in stream:
            received.append((kind, data))
            if kind == "idle":
                break  # the hidden one is all that runs: it waits
    finally:
        stream.close()
    assert received[0][0] == "hidden" and received[0][1]["match_id"] == first.match_id  # type: ignore[index]
    assert received[1][0] == "match" and received[1][1]["match_id"] == second.match_id  # type: ignore[index]
    assert received[2:] == [
        ("end", {"match_id": second.match_id, "status": "finished"}),
        ("idle", received[-1][1]),
    ]
    assert all(data.get("match_id") != first.match_id for kind, data in received[1:])  # type: ignore[union-attr]


def test_an_unknown_league_is_not_found_and_a_finished_one_says_finished(db: Database, site: str) -> None:
    assert fetch(f"{site}/api/leagues/nowhere/live")[0] == 404
    assert fetch(f"{site}/leagues/nowhere/watch")[0] == 404
    for name in ("ada", "brick"):
        register_bot(db, name, [GAME])
    league = create_league(db, "done", GAME, ["ada", "brick"], players=2, seed=4)
    status, page = fetch(f"{site}/leagues/done")
    assert status == 200 and 'href="/leagues/done/watch"' in page  # linked while it runs
    [ticket] = next_matches(db, league.id, 1)
    play_and_record(db, ticket, seed=1)
    assert [(kind, data) for kind, data, _ in events(f"{site}/api/leagues/done/live")] == [("finished", {})]
    status, page = fetch(f"{site}/leagues/done")
    assert status == 200 and "/watch" not in page
    status, page = fetch(f"{site}/leagues/done/watch")
    assert status == 200 and 'data-state="finished"' in page


def test_a_site_over_the_database_alone_says_so(db: Database) -> None:
    for name in ("ada", "brick"):
        register_bot(db, name, [GAME])
    league = create_league(db, "plain", GAME, ["ada", "brick"], players=2, seed=4)
    [ticket] = next_matches(db, league.id, 1)
    mark_running(db, ticket.match_id)
    web = BackgroundWebServer(db)  # as `kingmaker web` runs: no live hub
    try:
        stream = events(f"{web.url}/api/leagues/plain/live")
        note, named = next(stream), next(stream)
        play_and_record(db, ticket, seed=1, already_running=True)
        rest = [(kind, data) for kind, data, _ in stream]
    finally:
        web.stop()
    assert note[0] == "note" and "reads the database only" in note[1]["text"]  # type: ignore[index]
    assert named[0] == "match" and named[1]["match_id"] == ticket.match_id  # type: ignore[index]
    assert rest == [("end", {"match_id": ticket.match_id, "status": "finished"}), ("finished", {})]


def test_the_followers_of_a_league_share_one_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """A crowd asking at once waits for one reading; when the match shown ends, every follower
    tells the board so and asks again: one more reading, and all see the same next match."""
    reads: list[frozenset[int]] = []
    picks = iter([Pick(False, 11, ()), Pick(False, 12, ())])

    def read_pick(db: Any, league_id: int, gone: frozenset[int], hidden: dict[int, str]) -> Pick:
        reads.append(gone)
        return next(picks)

    monkeypatch.setattr(league_live, "read_pick", read_pick)

    async def run() -> tuple[list[Pick], list[Pick]]:
        board = LeagueBoard(None, 1)  # type: ignore[arg-type]  # nothing is read here
        first = await asyncio.gather(*(board.current() for _ in range(50)))

        async def next_one() -> Pick:
            board.gone(11)
            return await board.current()

        return first, await asyncio.gather(*(next_one() for _ in range(50)))

    first, after = asyncio.run(run())
    assert {pick.match_id for pick in first} == {11} and {pick.match_id for pick in after} == {12}
    assert reads == [frozenset(), frozenset({11})]


def test_a_reading_done_but_not_yet_taken_in_is_taken_by_the_next_follower() -> None:
    """A follower that asks after the reading finished, before anyone took it in, takes it in
    itself (awaiting a done future does not yield to the loop: waiting for a callback would spin
    the loop for ever, and with it the server; a bench's league crowd did that)."""
    got: list[Pick] = []

    async def run() -> None:
        board = LeagueBoard(None, 1)  # type: ignore[arg-type]  # nothing is read here
        done: asyncio.Future[Pick] = asyncio.get_running_loop().create_future()
        done.set_result(Pick(False, 21, ()))
        board._reading = done
        board._read_at = time.monotonic()
        got.append(await board.current())

    runner = threading.Thread(target=asyncio.run, args=(run(),), daemon=True)
    runner.start()
    runner.join(timeout=60)
    assert got == [Pick(False, 21, ())]


def test_a_league_delay_holds_its_followers_board_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    served = Site(tmp_path, "local")
    try:
        played = served.league("late", delay=2.0)
        served.running_match("late")
        opened = time.monotonic()
        stream = events(f"{served.url}/api/leagues/late/live")
        kind, _, _ = next(stream)
        assert kind == "match"
        kind, note, _ = next(stream)
        assert kind == "note" and "2 s late" in note["text"]  # type: ignore[index]
        kind, _, arrived = next(stream)
        assert kind == "frame" and arrived - opened >= 2.0  # never before the delay
        for _ in stream:
            pass
        played.result(timeout=120)
    finally:
        served.stop()
