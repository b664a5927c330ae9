"""League TV in headless Chromium: the page /leagues/NAME/watch draws a running match's board, then
another match's, as the league plays them one after another, without reloading, and says when
the league has finished."""

from __future__ import annotations

import time

import pytest
from test_live_boards import Site
from web_support import chromium_available, start_chromium

from kingmaker.ladder.matches.history import list_matches

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")

PAGE_STATE = """
const live = document.getElementById('live');
const heading = document.getElementById('live-match').querySelector('a');
return [window.sameDocument === true, live.dataset.state, live.dataset.match,
        document.querySelectorAll('#board svg').length, heading ? heading.getAttribute('href') : ''];
"""


def test_the_page_shows_a_board_then_another_matchs_board(worker_site: Site) -> None:
    worker_site.create_league("tv", entrants=3, seed=5)  # three matches
    browser = start_chromium()
    try:
        browser.get(f"{worker_site.url}/leagues/tv/watch")
        browser.execute_script("window.sameDocument = true;")  # gone if the page reloads
        played = worker_site.play("tv")
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
