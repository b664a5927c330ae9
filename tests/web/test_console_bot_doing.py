"""The console shows how an author's bot is doing (issue 47): its rating and place per game with
a chart of its rating over its matches (inline SVG, drawn by the server from the stored rating
history), and its newest 20 matches (opponents, place, score, version), filtered by opponent,
version and result through the page's query. Before, the page listed only matches whose seat kept
a log ("No match yet" after 700 rated matches)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from recorded_matches import recorded
from test_console_sessions import Browser

from kingmaker.ladder.bots import authors, bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.serve import BackgroundWebServer


@pytest.fixture
def doing(server: BackgroundServer) -> Iterator[tuple[Browser, dict[str, list[int]]]]:
    """annbot (ann's) played 24 matches: against bob it won 12 (version 1) then lost 10 (version
    2); against cat it drew 2 (version 2). ben's benbot played bob once."""
    db = server.server.db
    ann, token = authors.add_author(db, "ann")
    ben, _ = authors.add_author(db, "ben")
    bots.register_bot(db, "annbot", ["kingdoms"], None, author_id=ann.id)
    bots.register_bot(db, "benbot", ["kingdoms"], None, author_id=ben.id)
    for name in ("bob", "cat"):
        bots.register_bot(db, name, ["kingdoms"])
    played: dict[str, list[int]] = {"win": [], "loss": [], "draw": []}
    for _ in range(12):
        played["win"].append(recorded(db, ["annbot", "bob"], [1, 2], [1, None]))
    for _ in range(10):
        played["loss"].append(recorded(db, ["bob", "annbot"], [1, 2], [None, 2]))
    for _ in range(2):
        played["draw"].append(recorded(db, ["annbot", "cat"], [1, 1], [2, None]))
    recorded(db, ["benbot", "bob"], [1, 2])
    running = BackgroundWebServer(db, admin_address=server.address)
    try:
        browser = Browser(running.url)
        assert browser.sign_in(token)[0] == 303
        yield browser, played
    finally:
        running.stop()


def page_json(browser: Browser, query: str = "") -> dict[str, Any]:
    status, _, body = browser.request("GET", f"/api/console/bots/annbot{query}")
    assert status == 200, body
    return json.loads(body)  # type: ignore[no-any-return]


def test_the_bot_page_gives_rating_place_and_its_history(doing: tuple[Browser, dict[str, list[int]]]) -> None:
    browser, _ = doing
    [kingdoms] = page_json(browser)["ratings"]
    assert (kingdoms["game"], kingdoms["matches"], kingdoms["ladder_size"]) == ("kingdoms", 24, 4)
    assert 1 <= kingdoms["position"] <= 4
    history = kingdoms["history"]
    assert [point["matches"] for point in history] == list(range(1, 25)), "a point after each match"
    assert [point["version"] for point in history] == [1] * 12 + [2] * 12
    assert history[-1]["conservative"] == pytest.approx(kingdoms["conservative"])
    assert history[11]["mu"] > history[0]["mu"], "twelve wins raise it"
    assert history[21]["mu"] < history[11]["mu"], "ten losses lower it"
    _, _, page = browser.request("GET", "/console/bots/annbot")
    row = page[page.index('<table id="ratings">') :].split("</table>")[0]
    assert f"{kingdoms['position']} of 4" in row
    chart = page[page.index('<figure class="plot" data-game="kingdoms">') :].split("</figure>")[0]
    assert 'class="conservative"' in chart and 'data-points="24"' in chart
    assert 'class="version-change" data-version="2"' in chart, "where version 2 began"


def test_the_newest_twenty_with_opponents_place_score_and_version(
    doing: tuple[Browser, dict[str, list[int]]],
) -> None:
    browser, played = doing
    data = page_json(browser)
    newest = sorted(played["win"] + played["loss"] + played["draw"], reverse=True)
    assert [int(m["match_id"]) for m in data["matches"]] == newest[:20]
    draw = data["matches"][0]
    assert (draw["opponents"], draw["place"], draw["version"], draw["seat"]) == (["cat"], 1, 2, 0)
    loss = next(m for m in data["matches"] if int(m["match_id"]) == played["loss"][-1])
    assert (loss["opponents"], loss["place"], loss["score"], loss["version"]) == (["bob"], 2, 8, 2)
    older = page_json(browser, f"?after={data['older_matches']}")
    assert [int(m["match_id"]) for m in older["matches"]] == newest[20:]
    _, _, page = browser.request("GET", "/console/bots/annbot")
    assert page.count("<tr data-match=") == 20
    assert "No match yet" not in page


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?result=win", "win"),
        ("?result=loss&opponent=bob", "loss"),
        ("?opponent=cat", "draw"),
        ("?version=2&result=draw", "draw"),
    ],
)
def test_the_filters_in_the_query_keep_their_matches(
    doing: tuple[Browser, dict[str, list[int]]], query: str, expected: str
) -> None:
    browser, played = doing
    data = page_json(browser, query)
    assert [int(m["match_id"]) for m in data["matches"]] == sorted(played[expected], reverse=True)


def test_filters_are_carried_into_the_next_page_and_the_form(
    doing: tuple[Browser, dict[str, list[int]]],
) -> None:
    browser, played = doing
    everything = played["win"] + played["loss"]
    first = page_json(browser, "?opponent=bob")
    assert len(first["matches"]) == 20
    _, _, page = browser.request("GET", "/console/bots/annbot?opponent=bob")
    link = page.split('id="older" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    assert link == f"/console/bots/annbot?after={first['older_matches']}&opponent=bob"
    status, _, older = browser.request("GET", link)
    assert status == 200
    shown = [int(part.split('"')[0]) for part in older.split('<tr data-match="')[1:]]
    assert shown == sorted(everything, reverse=True)[20:]
    assert '<input name="opponent" value="bob"' in page


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?result=won", "result must be one of win, draw, loss, not 'won'"),
        ("?version=two", "a version is a number from 1, not 'two'"),
        ("?opponent=nobody", "no bot named 'nobody'"),
        ("?opponent=annbot", "'annbot' is never its own opponent"),
    ],
)
def test_a_bad_filter_is_a_clear_refusal(
    doing: tuple[Browser, dict[str, list[int]]], query: str, message: str
) -> None:
    browser, _ = doing
    status, _, body = browser.request("GET", f"/api/console/bots/annbot{query}")
    assert status in (400, 404), body
    assert message in json.loads(body)["error"]
    status, _, page = browser.request("GET", f"/console/bots/annbot{query}")
    assert status in (400, 404)
    assert message.replace("'", "&#39;") in page


def test_another_authors_bot_shows_nothing_filtered_or_not(
    doing: tuple[Browser, dict[str, list[int]]],
) -> None:
    browser, _ = doing
    for query in ("", "?opponent=bob", "?result=win"):
        status, _, body = browser.request("GET", f"/api/console/bots/benbot{query}")
        assert status == 404 and "you have no bot named 'benbot'" in body
        assert "bob" not in body
