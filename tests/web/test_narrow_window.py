"""A phone-sized window (500 px): no page scrolls sideways (a wide table or board scrolls in its
own box), and a board's labels stay readable (8 px at least) instead of shrinking with the window
to 5-6 px, as the club trial found on the bot page and the replays."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from web_support import chromium_available, one_match, start_chromium

from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.web.serve import BackgroundWebServer

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")

GAMES = ("kingdoms", "kingsburg", "kings_road", "kingsville")
BOTS = ("greedy", "a-bot-with-a-rather-long-name", "mine", "careful")
WINDOW = 500
READABLE_PX = 8

MEASURE = """
const svg = document.querySelector('#board svg');
let smallest = Infinity;
if (svg) {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  for (const text of svg.querySelectorAll('text')) {
    if (!text.textContent.trim()) continue;
    smallest = Math.min(smallest, parseFloat(text.getAttribute('font-size')) * scale);
  }
}
return [document.documentElement.scrollWidth, window.innerWidth, smallest];
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    db = open_database(f"sqlite:///{tmp_path_factory.mktemp('narrow') / 'ladder.db'}")
    for name in BOTS:
        register_bot(db, name, list(GAMES))
    matches = {
        game: one_match(db, game, BOTS[: min(4, get_game(game).spec.max_players)], seed=70 + index)
        for index, game in enumerate(GAMES)
    }
    web = BackgroundWebServer(db)
    try:
        yield {"url": web.url, "matches": matches}
    finally:
        web.stop()
        db.close()


def test_at_500_px_no_page_scrolls_sideways_and_board_labels_stay_readable(site: dict[str, Any]) -> None:
    browser = start_chromium(WINDOW, 900)
    try:
        matches = [f"/matches/{match_id}" for match_id in site["matches"].values()]
        pages = [f"/bots/{BOTS[1]}", "/standings/kingdoms", *matches]
        for path in pages:
            browser.get(site["url"] + path)
            wide, window, smallest = browser.execute_script(MEASURE)
            assert wide <= window, f"{path}: {wide} px wide in a {window} px window"
            if path.startswith("/matches/"):
                assert smallest >= READABLE_PX, f"{path}: a label shown at {smallest:.1f} px"
    finally:
        browser.quit()
