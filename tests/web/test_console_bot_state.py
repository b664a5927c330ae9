"""The console says how an author's bot stands (issue 47, findings 2 and 3): its status and newest
version in the list (before: the status column always empty, the newest version "—" while
version 2 was building), a bot page that reads as a sentence, and a ladder's enter/leave button
that shows whether the bot is in it (before: "leave" still offered after leaving, and pressing it
again gave a bare 404)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from test_console_sessions import Browser

from kingmaker.ladder.bots import authors, bots, versions
from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.serve import BackgroundWebServer


@pytest.fixture
def signed_in(server: BackgroundServer) -> Iterator[tuple[Browser, Any, int]]:
    db = server.server.db
    ann, token = authors.add_author(db, "ann")
    bots.register_bot(db, "annbot", ["kingdoms"], None, author_id=ann.id)
    bots.register_bot(db, "other", ["kingdoms"], None)
    running = BackgroundWebServer(db, admin_address=server.address)
    try:
        browser = Browser(running.url)
        assert browser.sign_in(token)[0] == 303
        yield browser, db, ann.id
    finally:
        running.stop()


def test_the_list_gives_each_bot_its_status_and_newest_version(signed_in: tuple[Browser, Any, int]) -> None:
    browser, db, ann = signed_in
    versions.start_submission(db, "subbot", ["kingdoms"], "ab" * 32, author_id=ann)
    status, _, body = browser.request("GET", "/api/console")
    assert status == 200, body
    listed = {bot["name"]: bot for bot in json.loads(body)["bots"]}
    assert listed["annbot"]["status"] == "not connected", "a remote bot"
    subbot = listed["subbot"]
    assert (subbot["status"], subbot["latest_version"], subbot["latest_status"]) == (
        "no version plays yet",
        1,
        "building",
    )
    _, _, page = browser.request("GET", "/console")
    row = page[page.index('data-bot="subbot"') :].split("</tr>")[0]
    assert "<td>no version plays yet</td>" in row
    assert 'href="/console/bots/subbot/versions/1">1</a> building' in row
    _, _, page = browser.request("GET", "/console/bots/subbot")
    line = page[page.index('<p id="status">') :].split("</p>")[0]
    assert line.startswith('<p id="status"><strong>no version plays yet</strong>: '), line
    assert "· games: kingdoms · newest" in line
    assert "; plays" not in line


def test_leaving_a_ladder_shows_enter_and_leaving_again_says_why(signed_in: tuple[Browser, Any, int]) -> None:
    browser, db, _ = signed_in
    create_league(db, "weekly", "kingdoms", ["annbot", "other"], format="ladder")

    def button() -> str:
        _, _, page = browser.request("GET", "/console/bots/annbot")
        row = page[page.index('data-league="weekly"') :].split("</tr>")[0]
        return row.rsplit("<button>", 1)[1].split("</button>")[0]

    assert button() == "leave"
    form = {"csrf": browser.csrf("/console/bots/annbot"), "league": "weekly", "action": "leave"}
    status, headers, _ = browser.request("POST", "/console/bots/annbot/leagues", form)
    assert (status, headers["location"]) == (303, "/console/bots/annbot")
    assert button() == "enter", "the page shows the server's state: the bot left"
    status, headers, _ = browser.request("POST", "/console/bots/annbot/leagues", form)  # an old page's
    assert (status, headers["location"]) == (303, "/console/bots/annbot"), "no bare 404"
    _, _, page = browser.request("GET", "/console/bots/annbot")
    assert "annbot could not leave weekly" in page
    form["action"] = "join"
    assert browser.request("POST", "/console/bots/annbot/leagues", form)[0] == 303
    assert button() == "leave"
