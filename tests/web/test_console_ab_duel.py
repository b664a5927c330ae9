"""The console names each game of an A/B duel with where it stands in plain words (issue 47,
finding 4: before, it showed one game's figures without its name, and they changed game under
the reader's eyes when the duel moved on)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from test_console_sessions import Browser

from kingmaker.ladder.bots import authors, versions
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.serve import BackgroundWebServer

KINGDOMS = "not weaker than v1 in Reiner Knizia's Kingdoms: 212 matches, -3 ± 14 Elo"
KINGSBURG = (
    "still undecided in Kingsburg: 40 of at most 800 matches against v1, +5 ± 60 Elo, about 6 min left"
)


@pytest.fixture
def duelling(server: BackgroundServer) -> Iterator[Browser]:
    db = server.server.db
    ann, token = authors.add_author(db, "ann")
    first = versions.start_submission(db, "annbot", ["kingdoms", "kingsburg"], "a" * 64, author_id=ann.id)
    second = versions.start_submission(db, "annbot", [], "b" * 64, author_id=ann.id, ab=True)
    assert (first.number, second.number) == (1, 2)
    versions.mark_testing(db, "annbot", 2, [])
    for game, words, done in (("kingdoms", KINGDOMS, True), ("kingsburg", KINGSBURG, False)):
        progress = {"game": game, "against": 1, "matches": 40, "done": done, "words": words}
        versions.record_ab(db, "annbot", 2, progress)
    moved = {"game": "kingsburg", "against": 1, "matches": 42, "words": KINGSBURG}
    versions.record_ab(db, "annbot", 2, moved)
    running = BackgroundWebServer(db, admin_address=server.address)
    try:
        browser = Browser(running.url)
        assert browser.sign_in(token)[0] == 303
        yield browser
    finally:
        running.stop()


def test_the_version_page_names_every_game_of_the_duel(duelling: Browser) -> None:
    status, _, page = duelling.request("GET", "/console/bots/annbot/versions/2")
    assert status == 200, page
    shown = page[page.index('<ul id="ab">') :].split("</ul>")[0]
    assert shown.count("<li>") == 2, "one line a game, each game's latest"
    assert "not weaker than v1 in Reiner Knizia&#39;s Kingdoms: 212 matches, -3 ± 14 Elo" in shown
    assert "still undecided in Kingsburg: 40 of at most 800 matches" in shown and "6 min left" in shown
    _, _, body = duelling.request("GET", "/api/console/bots/annbot/versions/2")
    games = json.loads(body)["ab_games"]
    assert [(game["game"], game["matches"]) for game in games] == [("kingdoms", 40), ("kingsburg", 42)]


def test_a_version_without_a_duel_says_none(duelling: Browser) -> None:
    _, _, page = duelling.request("GET", "/console/bots/annbot/versions/1")
    assert '<ul id="ab"><li>none</li>' in page
