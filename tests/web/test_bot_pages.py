"""Per-bot pages that stay fast (issue 27) and read right (issue 28): paged, from maintained rows
and bounded indexed reads (the number of statements does not grow with the bot's matches, and no
match log is read); faults link to their matches; a bot with no match shows dashes, not 0.00."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from kingmaker.ladder.bots.authors import add_author
from kingmaker.ladder.bots.bots import edit_bot, register_bot
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server.web.bot_page import PAGE_SIZE, bot_page
from kingmaker.server.web.serve import BackgroundWebServer

GAME = "kings_road"


def play(
    db: Database, names: list[str], reasons: tuple[EndReason, EndReason] = (EndReason.FINISHED,) * 2
) -> int:
    """A recorded match (no log needed: a bot page never reads one)."""
    ticket = mark_running(db, create_match(db, GAME, names, seed=1).match_id)
    seats = tuple(
        SeatOutcome(seat, bot, score=10 - seat, rank=seat + 1, end_reason=reason, detail=reason.value)
        for seat, (bot, reason) in enumerate(zip(ticket.bot_ids, reasons, strict=True))
    )
    finish_match(db, MatchOutcome(ticket.match_id, seats, "test"))
    return ticket.match_id


@pytest.fixture
def site(tmp_path: Path) -> Iterator[dict[str, Any]]:
    db = open_database(f"sqlite:///{tmp_path / 'bots.db'}")
    for name in ("ada", "brick", "idle", "rare"):
        register_bot(db, name, [GAME])
    web = BackgroundWebServer(db)
    try:
        yield {"db": db, "url": web.url}
    finally:
        web.stop()
        db.close()


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_a_bot_without_a_match_shows_dashes_where_an_average_is_meant(site: dict[str, Any]) -> None:
    play(site["db"], ["ada", "brick"])
    _, page = get(f"{site['url']}/standings/{GAME}")
    idle = re.search(r'<a href="/bots/idle">idle</a></td>(.*?)</tr>', page)
    assert idle is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", idle.group(1))
    # rating, mu, sigma, matches, win rate, average rank, faults
    assert cells[0] == "—" and cells[3] == "0" and cells[4] == "—" and cells[5] == "—"
    assert "0.00" not in cells[0] + cells[4] + cells[5]
    rows = {row["bot"]: row for row in json.loads(get(f"{site['url']}/api/standings/{GAME}")[1])["rows"]}
    assert (rows["idle"]["win_rate"], rows["idle"]["average_rank"]) == (None, None)
    assert (rows["ada"]["win_rate"], rows["ada"]["average_rank"]) == (1.0, 1.0)
    _, bot = get(f"{site['url']}/bots/idle")
    assert "0.0%" not in bot and re.search(r"<td class=\"num\">—</td>", bot)


def test_faults_link_to_the_matches_they_ended(site: dict[str, Any]) -> None:
    db, url = site["db"], site["url"]
    timeouts = [play(db, ["ada", "brick"], (EndReason.FINISHED, EndReason.TIMEOUT)) for _ in range(2)]
    play(db, ["ada", "brick"])
    crash = play(db, ["brick", "ada"], (EndReason.CRASHED, EndReason.FINISHED))
    data = json.loads(get(f"{url}/api/bots/brick")[1])
    assert data["faults"] == [
        {"reason": "timeout", "count": 2, "last_match_id": timeouts[-1]},
        {"reason": "crashed", "count": 1, "last_match_id": crash},
    ]
    _, page = get(f"{url}/bots/brick")
    assert (
        '<a href="?fault=timeout">timeout</a>' in page
        and f'<a href="/matches/{crash}">match {crash}</a>' in page
    )
    listed = json.loads(get(f"{url}/api/bots/brick?fault=timeout")[1])
    assert [match["match_id"] for match in listed["matches"]] == timeouts[::-1] and listed[
        "fault"
    ] == "timeout"
    _, filtered = get(f"{url}/bots/brick?fault=timeout")
    assert re.findall(r'data-match="(\d+)"', filtered) == [str(m) for m in timeouts[::-1]]
    for bad in ("finished", "nonsense", "x" * 500):
        status, body = get(f"{url}/api/bots/brick?fault={bad}")
        assert (
            status == 400 and "\n" not in json.loads(body)["error"] and len(json.loads(body)["error"]) < 300
        )


def test_a_bots_matches_are_paged_newest_first(site: dict[str, Any]) -> None:
    db, url = site["db"], site["url"]
    played = [play(db, ["ada", "rare"] if n % 2 else ["rare", "ada"]) for n in range(PAGE_SIZE + 7)]
    first, second = (json.loads(get(f"{url}/api/bots/rare?page={n}")[1]) for n in (1, 2))
    assert [m["match_id"] for m in first["matches"] + second["matches"]] == played[::-1]
    assert (first["more"], second["more"]) == (True, False)
    assert all(m["rank"] in (1, 2) and m["score"] in (9, 10) for m in first["matches"])
    _, page = get(f"{url}/bots/rare?page=2")
    assert 'rel="prev" href="?page=1"' in page and 'rel="next"' not in page
    assert get(f"{url}/api/bots/rare?page=0")[0] == 400 and get(f"{url}/api/bots/nobody")[0] == 404


def statements(db: Database, name: str) -> list[str]:
    seen: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        bot_page(db, name)
        bot_page(db, name, fault="timeout")
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    return seen


def test_a_bot_page_costs_the_same_few_indexed_reads_however_many_matches(site: dict[str, Any]) -> None:
    db = site["db"]
    play(db, ["ada", "brick"], (EndReason.FINISHED, EndReason.TIMEOUT))
    few = statements(db, "brick")
    for number in range(3 * PAGE_SIZE):  # a fault in one match of three: never suspended
        play(
            db,
            ["ada", "brick"],
            (EndReason.FINISHED, EndReason.TIMEOUT if number % 3 == 2 else EndReason.FINISHED),
        )
    many = statements(db, "brick")
    assert len(many) == len(few) <= 20
    assert not [s for s in many if "matchlog" in s.lower()]  # a page never reads a match's log
    assert not [s for s in many if "GROUP BY" in s.upper()]  # nor counts over the bot's seats


def test_a_bot_page_shows_its_author_its_versions_and_where_each_started_to_play(
    site: dict[str, Any],
) -> None:
    db = site["db"]
    ann, _ = add_author(db, "ann")
    register_bot(db, "annbot", [GAME], ["/bin/true"], author_id=ann.id)  # version 1: its command

    def play_version(version: int) -> None:
        ticket = mark_running(db, create_match(db, GAME, ["annbot", "ada"], seed=1).match_id)
        seats = tuple(
            SeatOutcome(seat, bot, score=10 - seat, rank=seat + 1, version=version if seat == 0 else None)
            for seat, bot in enumerate(ticket.bot_ids)
        )
        finish_match(db, MatchOutcome(ticket.match_id, seats, "test"))

    play_version(1)
    play_version(1)
    edit_bot(db, "annbot", command=["/bin/false"])  # the admin's new command: version 2
    play_version(2)

    data = json.loads(get(f"{site['url']}/api/bots/annbot")[1])
    assert data["author"] == "ann" and data["active_version"] == 2
    assert [(row["number"], row["status"], row["reason"]) for row in data["versions"]] == [
        (2, "active", ""),
        (1, "retired", "another version plays instead"),
    ]
    assert not {"source", "command", "manifest", "language", "protocol"} & set(data["versions"][0])
    assert [point["version"] for point in data["history"][GAME]] == [1, 1, 2]
    status, html = get(f"{site['url']}/bots/annbot")
    assert status == 200 and "by <strong>ann</strong>; plays version 2" in html
    marks = re.findall(r'class="version-change" data-version="(\d+)"', html)
    assert marks == ["2"], "one mark, where version 2 started"
    assert "the admin's" in get(f"{site['url']}/bots/ada")[1]
