"""Screenshots of each page kind for docs/ (docs/web-*.png), made with the tests' own tooling: a
ladder of engine-played matches (``web_support``), the site on loopback, headless Chromium. Each
game's replay is taken at two window widths (``web-replay-GAME.png`` at 1280 px and
``web-replay-GAME-narrow.png`` at 720 px); every image is reduced to a 64-colour palette, which
keeps it small and loses nothing a flat drawing has.

    .venv/bin/python tests/web/make_screenshots.py [OUTPUT_FOLDER]   # default: docs/
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image
from web_support import one_match, play_and_record, start_chromium

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.web.serve import BackgroundWebServer

GAMES = ("kingdoms", "kingsburg", "kings_road", "kingsville")
BOTS = ("greedy", "random", "mine", "careful")
WIDTHS = {"": 1280, "-narrow": 720}


def save(png: bytes, path: Path) -> None:
    """``png`` reduced to 64 colours (the pages are flat colours and text)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


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
    try:
        browser = start_chromium(1280, 900)
        try:
            for name, path in {
                "standings": "/standings/kingdoms",
                "bot": "/bots/greedy",
                "league": "/leagues/weekly",
            }.items():
                browser.get(site.url + path)
                save(browser.get_screenshot_as_png(), output / f"web-{name}.png")
        finally:
            browser.quit()
        for suffix, width in WIDTHS.items():
            browser = start_chromium(width, 2000)  # tall enough to hold the whole replay section
            try:
                for game in GAMES:
                    shoot_replay(
                        browser, site.url, db, matches[game], output / f"web-replay-{game}{suffix}.png"
                    )
            finally:
                browser.quit()
    finally:
        site.stop()
        db.close()


def shoot_replay(browser: Any, url: str, db: Any, match_id: int, path: Path) -> None:
    """The replay section at two thirds of the match (a link to that moment: no script needed)."""
    steps = len(match_log(db, match_id).actions)
    browser.get(f"{url}/matches/{match_id}?step={max(1, steps * 2 // 3)}")
    section = browser.find_element("id", "replay")
    save(section.screenshot_as_png, path)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2] / "docs")
