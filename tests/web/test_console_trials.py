"""The console's trial matches page (issue 47): a bot's owner sees what its versions played in
validation and A/B duels (version, game, opponent, place, why), one version's or all, and each
match with every move and the command that replays it; nobody else sees any of it, nor that the
bot has any."""

from __future__ import annotations

import html
import json
import random
import re
from typing import Any

import pytest
from test_console_sessions import Browser, site  # noqa: F401  (the fixture)
from typer.testing import CliRunner

from kingmaker.games.registry import get_game
from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.matches.compact_logs import pack_log
from kingmaker.ladder.matches.trial_matches import TrialSeat, record_trial
from kingmaker.ladder.records import actions_to_data
from kingmaker.ladder.storage.db import Database
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.web.console import trials as console_trials

GAME = "kingsville"


def played_trial(db: Database, bot: str, version: int, purpose: str, seed: int) -> tuple[int, int]:
    """A trial match really played (random legal actions) and kept as the server keeps one: its
    id and how many moves it has. The version plays seat 0 against a random bot, or, in a duel,
    against the version before it."""
    game = get_game(GAME)
    state = game.new(2, seed, {})
    chooser = random.Random(seed)
    log = []
    while not state.is_over():
        joint = {seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()}
        state.apply(joint)
        log.append(joint)
    result = state.result()
    opponent = (bot, version - 1) if purpose == "duel" else ("random-1", None)
    seats = [
        TrialSeat(bot, version, result.scores[0], result.ranks[0], "finished"),
        TrialSeat(opponent[0], opponent[1], result.scores[1], result.ranks[1], "finished"),
    ]
    packed = pack_log(GAME, actions_to_data(log), [[], []], {})
    trial_id = record_trial(db, bot, version, purpose, GAME, game.spec.edition, seed, {}, seats, packed)
    return trial_id, sum(len(joint) for joint in log)


def rows(page: str) -> list[str]:
    return re.findall(r'<tr data-trial="(\d+)">', page)


def test_the_owner_lists_and_reads_their_bots_trial_matches(site: dict[str, Any]) -> None:  # noqa: F811
    db = site["db"]
    validation, _ = played_trial(db, "annbot", 1, "validation", seed=1)
    duel, moves = played_trial(db, "annbot", 2, "duel", seed=2)
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])

    status, _, page = browser.request("GET", "/console/bots/annbot")
    assert status == 200 and 'href="/console/bots/annbot/trials"' in page

    status, _, page = browser.request("GET", "/console/bots/annbot/trials")
    assert status == 200, page
    assert rows(page) == [str(duel), str(validation)], "newest first"
    row = page.split(f'<tr data-trial="{duel}">', 1)[1].split("</tr>", 1)[0]
    cells = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
    assert cells[0] == f"trial:{duel}" and cells[1:4] == ["2", "A/B duel", GAME], cells
    assert cells[5] == "annbot@1", "its opponent: the version before it"
    assert re.fullmatch(r"[12] of 2", cells[6]) and cells[8] == "finished", cells
    assert f'href="/console/bots/annbot/trials/{duel}"' in row
    other = page.split(f'<tr data-trial="{validation}">', 1)[1].split("</tr>", 1)[0]
    assert "validation" in other and "random-1" in other

    status, _, page = browser.request("GET", "/console/bots/annbot/trials?version=1")
    assert status == 200 and rows(page) == [str(validation)]
    listed = json.loads(browser.request("GET", "/api/console/bots/annbot/trials?version=2")[2])
    assert [(t["id"], t["version"], t["why"], t["opponents"]) for t in listed["trials"]] == [
        (duel, 2, "A/B duel", ["annbot@1"])
    ]

    status, _, page = browser.request("GET", f"/console/bots/annbot/trials/{duel}")
    assert status == 200, page
    assert "annbot v2's duel match: never rated" in html.unescape(page)
    assert f"kingmaker replay trial:{duel} --bot annbot" in page
    assert len(re.findall(r'<tr data-step="\d+">', page)) == moves
    shown = json.loads(browser.request("GET", f"/api/console/bots/annbot/trials/{duel}")[2])
    assert [seat["bot"] for seat in shown["seats"]] == ["annbot@2", "annbot@1"]
    assert sum(len(step["moves"]) for step in shown["steps"]) == moves
    assert all(move["action"] and "unreadable" not in move["action"] for step in shown["steps"]
               for move in step["moves"])  # fmt: skip


def test_nobody_else_sees_a_bots_trial_matches(site: dict[str, Any]) -> None:  # noqa: F811
    db = site["db"]
    duel, _ = played_trial(db, "annbot", 2, "duel", seed=3)
    ben = authors.get_author(db, "ben").id
    bots.register_bot(db, "benbot", [GAME], None, author_id=ben)
    paths = [
        "/console/bots/annbot/trials",
        f"/console/bots/annbot/trials/{duel}",
        "/api/console/bots/annbot/trials",
        f"/api/console/bots/annbot/trials/{duel}",
    ]
    stranger = Browser(site["url"])
    stranger.sign_in(site["ben"])
    for path in paths:
        status, _, page = stranger.request("GET", path)
        page = html.unescape(page)
        assert status == 404 and "you have no bot named 'annbot'" in page, (path, status)
        assert not any(text in page for text in ("data-trial", "trial:", "annbot@", "never rated", "seed"))
    # ben's own bot does not reach ann's trial match by its id
    status, _, page = stranger.request("GET", f"/console/bots/benbot/trials/{duel}")
    assert status == 404 and f"benbot has no trial match {duel}" in html.unescape(page), (status, page)
    # signed out: nothing at all
    for path in paths:
        status, _, page = Browser(site["url"]).request("GET", path)
        assert status in (303, 401) and "data-trial" not in page and "annbot@" not in page, (path, status)


def test_trial_matches_come_a_page_at_a_time_in_the_console_and_the_cli(
    site: dict[str, Any],  # noqa: F811
    server: BackgroundServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db = site["db"]
    monkeypatch.setattr(console_trials, "SHOWN", 2)
    ids = [played_trial(db, "annbot", 1, "validation", seed=seed)[0] for seed in range(3)]
    ids += [played_trial(db, "annbot", 2, "duel", seed=seed)[0] for seed in range(3, 5)]
    newest_first = [str(trial_id) for trial_id in reversed(ids)]
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])

    pages, path = [], "/console/bots/annbot/trials"
    while path:
        status, _, page = browser.request("GET", html.unescape(path))
        assert status == 200, page
        pages.append(rows(page))
        assert ('id="newest"' in page) == (len(pages) > 1)
        older = re.search(r'<a id="older" href="([^"]+)"', page)
        path = older.group(1) if older else ""
    assert pages == [newest_first[0:2], newest_first[2:4], newest_first[4:]]

    # One version's, a page at a time too: the filter stays on the next page's link.
    status, _, page = browser.request("GET", "/console/bots/annbot/trials?version=1")
    assert rows(page) == newest_first[2:4]
    older = re.search(r'<a id="older" href="([^"]+)"', page)
    assert older and "version=1" in older.group(1)
    assert rows(browser.request("GET", html.unescape(older.group(1)))[2]) == newest_first[4:]
    listed = json.loads(browser.request("GET", "/api/console/bots/annbot/trials?version=1")[2])
    assert listed["older"] == newest_first[3]
    status, _, page = browser.request("GET", "/console/bots/annbot/trials?before=x")
    assert status == 400, page

    # The CLI: --limit a page, "more: --before ID" for the next, and a bad token said plainly.
    owner = ["--server", server.address, "--token", site["ann"]]
    first = CliRunner().invoke(app, ["bot", "trials", "annbot", "--limit", "3", *owner])
    assert first.exit_code == 0, first.output
    assert f"more: --before {newest_first[2]}" in first.output
    rest = CliRunner().invoke(app, ["bot", "trials", "annbot", "--before", newest_first[2], "--json", *owner])
    assert rest.exit_code == 0, rest.output
    assert [str(trial["id"]) for trial in json.loads(rest.output)] == newest_first[3:]
    bad = CliRunner().invoke(app, ["bot", "trials", "annbot", "--before", "later", *owner])
    assert bad.exit_code != 0 and "not a page token: 'later'" in bad.output, bad.output
