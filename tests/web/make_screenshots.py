"""Screenshots of each page kind for docs/ (docs/web-*.png), made with the tests' own tooling: a
ladder of engine-played matches (``web_support``), the site on loopback, headless Chromium.

    .venv/bin/python tests/web/make_screenshots.py [OUTPUT_FOLDER]   # default: docs/
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from web_support import one_match, play_and_record, start_chromium

from kingmaker.ladder.bots import register_bot
from kingmaker.ladder.db import open_database
from kingmaker.ladder.leagues import create_league, next_matches
from kingmaker.ladder.matches import match_log
from kingmaker.server.web.serve import BackgroundWebServer

GAMES = ("kingdoms", "kingsburg", "kings_road", "kingsville")
BOTS = ("greedy", "random", "mine", "careful")


def main(output: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="km-shots-"))
    db = open_database(f"sqlite:///{folder / 'ladder.db'}")
    for name in BOTS:
        register_bot(db, name, list(GAMES))
    matches = {}
    for round_number in range(3):
        for index, game in enumerate(GAMES):
            matches[game] = one_match(db, game, BOTS[:3], seed=100 * round_number + index)
    league = create_league(db, "weekly", "kingdoms", list(BOTS), players=2, seed=7)
    for number, ticket in enumerate(next_matches(db, league.id, 4)):
        play_and_record(db, ticket, seed=number)
    site = BackgroundWebServer(db)
    browser = start_chromium(1280, 900)
    try:
        shots = {
            "standings": "/standings/kingdoms",
            "bot": "/bots/greedy",
            "league": "/leagues/weekly",
        }
        for name, path in shots.items():
            browser.get(site.url + path)
            browser.save_screenshot(str(output / f"web-{name}.png"))
        for game in GAMES:
            log = match_log(db, matches[game])
            browser.get(f"{site.url}/matches/{matches[game]}")
            step = min(len(log.actions), max(1, len(log.actions) * 2 // 3))
            browser.execute_script(
                "document.getElementById('replay').scrollIntoView();"
                f"for (let i = 0; i < {step}; i++) document.getElementById('next').click();"
            )
            deadline = time.monotonic() + 20
            while browser.find_element("id", "step").text != str(step) and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(0.3)
            browser.save_screenshot(str(output / f"web-replay-{game}.png"))
    finally:
        browser.quit()
        site.stop()
        db.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2] / "docs")
