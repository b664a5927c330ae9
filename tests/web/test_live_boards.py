"""Watching a running match (issue 28): the website inside the server streams each move's public
board, whether the match is refereed in the server or in a worker process; a match nobody watches
costs the referee no frame; a league's delay holds the board back; and a site over the database
alone says it has no live feed."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from web_support import PATIENT_BOT, events, spectator_views

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.execution.process_executor import ProcessExecutor
from kingmaker.server.live import LiveHub
from kingmaker.server.refereeing.referee import Referee
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.web.serve import BackgroundWebServer

GAME = "kingdoms"


class Site:
    """A server (with the given executor) and the website inside it, on loopback."""

    def __init__(self, folder: Path, executor: str) -> None:
        config = ServerConfig(
            address="127.0.0.1:0",
            database_url=f"sqlite:///{folder / 'live.db'}",
            admin_token="t",
            jail=False,  # the test's own bots
            executor=executor,
            workers=1,
            time_control=TimeControl(decision_ms=10_000),
        )
        self.server = BackgroundServer(config)
        self.db: Database = self.server.server.db
        self.live: LiveHub = self.server.server.live
        self.web = BackgroundWebServer(self.db, live=self.live)
        self.url = self.web.url

    def league(self, name: str, delay: float | None = None, command: list[str] = PATIENT_BOT) -> Future[None]:
        """Create a league of two patient bots (one match) and start playing it in the background."""
        self.create_league(name, delay=delay, command=command)
        return self.play(name)

    def create_league(
        self,
        name: str,
        entrants: int = 2,
        delay: float | None = None,
        command: list[str] = PATIENT_BOT,
        seed: int = 7,
    ) -> None:
        """A round robin of ``entrants`` patient bots (``NAME-a``, ``NAME-b``, ...), two a match."""
        names = [f"{name}-{letter}" for letter in "abcdefgh"[:entrants]]
        for bot in names:
            bots.register_bot(self.db, bot, [GAME], command=command)
        leagues.create_league(self.db, name, GAME, names, players=2, seed=seed, live_delay_s=delay)

    def play(self, name: str) -> Future[None]:
        """Play league ``name`` in the background, one match at a time."""

        async def run() -> None:
            async for _ in self.server.server.leagues.watch(name, 1):
                pass

        return asyncio.run_coroutine_threadsafe(run(), self.server.loop)

    def running_match(self, league: str, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [m for m in list_matches(self.db, league=league) if m.status == MatchStatus.RUNNING]
            if found:
                return found[0].match_id
            time.sleep(0.05)
        raise AssertionError(f"no match of {league} started")

    def stop(self) -> None:
        self.web.stop()
        self.server.stop()


@pytest.fixture(params=["local", "processes"])
def site(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    running = Site(tmp_path, request.param)
    try:
        yield running
    finally:
        running.stop()


def test_a_running_match_streams_its_public_board_as_moves_are_made(site: Site) -> None:
    played = site.league("watched")
    match_id = site.running_match("watched")
    received = list(events(f"{site.url}/api/matches/{match_id}/live"))
    played.result(timeout=120)
    executor = site.server.server.executor
    if isinstance(executor, ProcessExecutor):  # refereed in the worker, watched through its pipe
        assert [worker.played for worker in executor.workers] == [1]
    kinds = [kind for kind, _, _ in received]
    assert kinds[-1] == "end" and received[-1][1] == {"status": "finished"}
    frames = [data for kind, data, _ in received if kind == "frame"]
    steps = [frame["step"] for frame in frames]  # type: ignore[index]
    assert len(frames) >= 3 and steps == sorted(set(steps)), steps  # moves arrive, in order
    assert frames[-1]["over"] is True  # type: ignore[index]
    # Each frame is the engine's spectator view at its step (the page draws it): nothing else got in.
    expected = spectator_views(site.db, match_id)
    summary = next(m for m in list_matches(site.db, league="watched") if m.match_id == match_id)
    for frame in frames:
        assert isinstance(frame, dict)
        view = expected[frame["step"]]
        assert frame["view"] == view and view["starting_tile"] is None and view["drawn_tile"] is None
        assert set(frame) == {"step", "to_act", "acted", "over", "bots", "scores", "score_name", "view"}
        assert frame["bots"] == list(summary.bots)
        assert str(summary.seed) not in json.dumps(frame)


def test_a_match_nobody_watches_builds_no_frame(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    published: list[str] = []
    frame = Referee._frame
    publish = LiveHub.publish

    def counting_frame(self: Referee, *args: Any) -> Any:
        built.append(1)
        return frame(self, *args)

    def counting_publish(self: LiveHub, live_frame: Any) -> None:
        published.append(live_frame.match_id)
        publish(self, live_frame)

    monkeypatch.setattr(Referee, "_frame", counting_frame)
    monkeypatch.setattr(LiveHub, "publish", counting_publish)
    site.league("unwatched").result(timeout=120)
    [match] = list_matches(site.db, league="unwatched")
    assert match.status == MatchStatus.FINISHED
    assert built == [] and published == []  # in a worker, nothing even crossed the pipe
    assert not site.live.watching


def test_a_league_delay_holds_the_board_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    site = Site(tmp_path, "local")
    try:
        played = site.league("late", delay=2.0)
        match_id = site.running_match("late")
        opened = time.monotonic()
        stream = events(f"{site.url}/api/matches/{match_id}/live")
        kind, note, _ = next(stream)
        assert kind == "note" and "2 s late" in note["text"]  # type: ignore[index]
        kind, _, arrived = next(stream)
        assert kind == "frame" and arrived - opened >= 2.0  # never before the delay
        for _ in stream:
            pass
        played.result(timeout=120)
    finally:
        site.stop()


def test_a_site_over_the_database_alone_says_it_has_no_live_board(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    site = Site(tmp_path, "local")
    standalone = BackgroundWebServer(site.db)  # as `kingmaker web` runs: no live hub
    try:
        played = site.league("elsewhere")
        match_id = site.running_match("elsewhere")
        received = list(events(f"{standalone.url}/api/matches/{match_id}/live"))
        played.result(timeout=120)
        assert [kind for kind, _, _ in received] == ["note", "end"]
        assert "reads the database only" in received[0][1]["text"]  # type: ignore[index]
    finally:
        standalone.stop()
        site.stop()
