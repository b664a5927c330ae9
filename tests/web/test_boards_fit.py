"""Boards that fit (issue 28): every board of every game, at two window widths, has each of its
texts whole inside its box (the text's box in the browser's layout against its frame's), no label
smaller than 9 px at the default width, and no page wider than the window. Wrapping breaks at
spaces only: Kingsburg's buildings and King's Road's hands read whole ("Guard Tower", not "Guard
To"; "Dark Tower", not "Dar / k Tower")."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from web_support import chromium_available, one_match, start_chromium

from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.web.boards.text import fit, width, wrap
from kingmaker.server.web.serve import BackgroundWebServer

GAMES = ("kingdoms", "kingsburg", "kings_road", "kingsville")
BOTS = ("greedy", "a-bot-with-a-rather-long-name", "mine", "careful")
WIDTHS = (1280, 720)

OVERFLOWS = """
const problems = [];
const svg = document.querySelector('#board svg');
const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
let smallest = Infinity, natural = Infinity;
for (const text of svg.querySelectorAll('text')) {
  if (!text.textContent.trim()) continue;
  const box = text.closest('g.box');
  const frame = box ? box.firstElementChild : svg;
  const a = text.getBoundingClientRect(), b = frame.getBoundingClientRect();
  if (a.left < b.left - 0.5 || a.right > b.right + 0.5 || a.top < b.top - 0.5 || a.bottom > b.bottom + 0.5) {
    problems.push(text.textContent + ' overflows its ' + (box ? box.getAttribute('class') : 'board')
      + ` by ${Math.max(b.left - a.left, a.right - b.right, b.top - a.top, a.bottom - b.bottom)} px`);
  }
  natural = Math.min(natural, parseFloat(text.getAttribute('font-size')));
  smallest = Math.min(smallest, natural * scale);
}
const wide = document.documentElement.scrollWidth > window.innerWidth;
return [problems, smallest, natural, wide, svg.querySelectorAll('text').length];
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    db = open_database(f"sqlite:///{tmp_path_factory.mktemp('fit') / 'ladder.db'}")
    for name in BOTS:
        register_bot(db, name, list(GAMES))
    matches = {
        (game, players): one_match(db, game, BOTS[:players], seed=300 + 10 * index + players)
        for index, game in enumerate(GAMES)
        for players in (2, min(4, get_game(game).spec.max_players))
    }
    web = BackgroundWebServer(db)
    try:
        yield {"db": db, "url": web.url, "matches": matches}
    finally:
        web.stop()
        db.close()


@pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")
@pytest.mark.parametrize("window", WIDTHS)
def test_every_text_of_every_board_fits_its_box(site: dict[str, Any], window: int) -> None:
    browser = start_chromium(window, 900)
    found: list[str] = []
    try:
        for (game, players), match_id in site["matches"].items():
            steps = len(match_log(site["db"], match_id).actions)
            for step in (0, steps // 3, 2 * steps // 3, steps):
                for view in ("full", "seat:1"):
                    browser.get(f"{site['url']}/matches/{match_id}?step={step}&view={view}")
                    problems, smallest, natural, wide, texts = browser.execute_script(OVERFLOWS)
                    where = f"{game} ({players} seats) step {step} {view} at {window} px"
                    assert texts > 5, where
                    found += [f"{where}: {problem}" for problem in problems]
                    assert natural >= 8.5, f"{where}: a label drawn at {natural} px"
                    if window == WIDTHS[0]:  # the default size: every label readable
                        assert smallest >= 9, f"{where}: a label shown at {smallest:.1f} px"
                    assert not wide, f"{where}: the page is wider than the window"
    finally:
        browser.quit()
    assert not found, "\n".join(found[:20])


@given(st.lists(st.sampled_from(["Dark", "Tower", "Zin", "Kai's", "Deep", "Guard", "·", "Wizards", "x" * 30]),
                max_size=30), st.floats(40, 400), st.floats(6, 16))  # fmt: skip
def test_wrapping_breaks_at_spaces_only_and_fit_keeps_the_room(
    words: list[str], room: float, size: float
) -> None:
    text = " ".join(words)
    lines = wrap(text, room, size)
    assert " ".join(line for line in lines if line) == text  # every word whole, in order
    fitted = fit(text, room, size)
    assert fitted.size <= size and " ".join(line for line in fitted.lines if line) == text
    assert all(width(line, fitted.size) <= room + 1e-6 for line in fitted.lines)
    assert all(width(line, size) <= room or " " not in line for line in lines)  # over only if one word
