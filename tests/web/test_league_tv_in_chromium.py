"""League TV in headless Chromium: the page /leagues/NAME/watch draws a running match's board, then
another match's, as the league plays them one after another, without reloading, and says when
the league has finished."""

from __future__ import annotations

import asyncio
import time

import pytest
from test_live_boards import GAME, Site
from web_support import PATIENT_BOT, chromium_available, start_chromium

from kingmaker.ladder import bots, leagues
from kingmaker.ladder.history import list_matches

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")

PAGE_STATE = """
const live = document.getElementById('live');
const heading = document.getElementById('live-match').querySelector('a');
return [window.sameDocument === true, live.dataset.state, live.dataset.match,
        document.querySelectorAll('#board svg').length, heading ? heading.getAttribute('href') : ''];
"""


def test_the_page_shows_a_board_then_another_matchs_board(worker_site: Site) -> None:
    names = [f"tv-{letter}" for letter in "abc"]
    for name in names:
        bots.register_bot(worker_site.db, name, [GAME], command=PATIENT_BOT)
    leagues.create_league(worker_site.db, "tv", GAME, names, players=2, seed=5)  # three matches

    async def run() -> None:
        async for _ in worker_site.server.server.leagues.watch("tv", 1):  # one at a time
            pass

    browser = start_chromium()
    try:
        browser.get(f"{worker_site.url}/leagues/tv/watch")
        browser.execute_script("window.sameDocument = true;")  # gone if the page reloads
        played = asyncio.run_coroutine_threadsafe(run(), worker_site.server.loop)
        drawn: list[str] = []  # the matches whose board the page drew, in order
        states: list[str] = []
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            same, state, match, boards, link = browser.execute_script(PAGE_STATE)
            assert same, "the page reloaded"
            if not states or states[-1] != state:
                states.append(state)
            if state == "live" and boards == 1 and match not in drawn:
                assert link == f"/matches/{match}"  # the match named, and linked
                drawn.append(match)
            if state == "finished":
                break
            time.sleep(0.05)
        played.result(timeout=120)
    finally:
        browser.quit()
    assert states[-1] == "finished"
    played_ids = [
        str(m.match_id) for m in sorted(list_matches(worker_site.db, league="tv"), key=lambda m: m.match_id)
    ]
    assert len(drawn) >= 2 and len(set(drawn)) == len(drawn), drawn  # a board, then another match's
    assert set(drawn) <= set(played_ids)
