"""Many spectators of one running match (issue 35): they share one subscription to the server's
live hub, each step's board is drawn once whatever their number, the match's facts are read
once, and every watcher still gets the moves in order and the match's end."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from test_live_boards import Site
from web_support import events

from kingmaker.server.live import LiveHub
from kingmaker.server.web import live_feed

WATCHERS = 12


def test_watchers_of_one_match_share_its_frames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    drawn: list[int] = []
    facts_read: list[int] = []
    subscribed: list[str] = []
    draw, read_facts, add = live_feed.draw_spectator_board, live_feed._match_facts, LiveHub._add

    def counting_draw(game: str, view: Any, bots: Any) -> str:
        drawn.append(1)
        return draw(game, view, bots)

    def counting_facts(db: Any, match_id: int) -> dict[str, Any]:
        facts_read.append(match_id)
        return read_facts(db, match_id)

    def counting_add(self: LiveHub, subscription: Any) -> None:
        subscribed.append(subscription.match_id)
        add(self, subscription)

    monkeypatch.setattr(live_feed, "draw_spectator_board", counting_draw)
    monkeypatch.setattr(live_feed, "_match_facts", counting_facts)
    monkeypatch.setattr(LiveHub, "_add", counting_add)
    site = Site(tmp_path, "local")
    try:
        played = site.league("crowd")
        match_id = site.running_match("crowd")
        url = f"{site.url}/api/matches/{match_id}/live"
        with ThreadPoolExecutor(WATCHERS) as pool:
            streams = list(pool.map(lambda _: list(events(url)), range(WATCHERS)))
        played.result(timeout=120)
    finally:
        site.stop()
    sent: set[int] = set()
    for received in streams:
        kinds = [kind for kind, _, _ in received]
        assert kinds[-1] == "end" and received[-1][1] == {"status": "finished"}
        steps = [data["step"] for kind, data, _ in received if kind == "frame"]  # type: ignore[index]
        assert steps and steps == sorted(set(steps)), steps
        sent.update(steps)
    # One subscription for the whole crowd (a watcher that came after the match ended may have
    # opened a second one: never one per watcher), one read of the facts, one drawing per step.
    assert 1 <= subscribed.count(str(match_id)) < WATCHERS // 2
    assert facts_read == [match_id]
    assert len(drawn) == len(sent)
