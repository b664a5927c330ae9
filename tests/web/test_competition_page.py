"""A competition's page in headless Chromium: an open one counts down to its deadline; a finished
one shows its bracket stage by stage, the final standings with the winner first, every decision,
and each finals match links to its replay, which plays the stored match; a finals match in play
links to its live board."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from web_support import chromium_available, play_and_record

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.competitions.competition_phases import apply_clock, start_finals
from kingmaker.ladder.competitions.competitions import create_competition, enter_competition
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server.web.serve import BackgroundWebServer

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")

BOTS = ("ada", "brick", "cyd", "dot")
SWISS_MORE = ("eve", "fig", "gus")


def play_stage(db: Database, names: list[str], seed: int) -> None:
    """Play every match of these leagues with random legal actions, recorded as the server would."""
    for name in names:
        info = leagues.get_league(db, name)
        while tickets := leagues.claim_matches(db, info.id, 4):
            for ticket in tickets:
                play_and_record(db, ticket, seed, already_running=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("competition-web")
    db = open_database(f"sqlite:///{folder / 'ladder.db'}")
    for name in BOTS:
        register_bot(db, name, ["kingdoms"], command=["true", name])
    now = datetime.now(UTC)
    create_competition(db, "spring", "kingdoms", now + timedelta(days=2, hours=3), now)
    create_competition(
        db, "cup", "kingdoms", now + timedelta(hours=1), now, finals={"format": "bracket", "best_of": 1}
    )
    for name in BOTS:
        enter_competition(db, "cup", name, now)
    later = now + timedelta(hours=2)
    apply_clock(db, later)
    stage = start_finals(db, "cup", later)
    number = 0
    while stage:
        number += 1
        play_stage(db, stage, seed=number)
        stage = apply_clock(db, later + timedelta(minutes=number)).to_run
    # "derby": its final in play now (claimed, not finished).
    create_competition(db, "derby", "kingdoms", now + timedelta(hours=1), now, finals={"format": "bracket"})
    for name in BOTS[:2]:
        enter_competition(db, "derby", name, now)
    apply_clock(db, later)
    (final,) = start_finals(db, "derby", later)
    running = leagues.claim_matches(db, leagues.get_league(db, final).id, 1)[0].match_id
    # "season": tiers, open; its entries play the lowest tier with its boss.
    for name in ("wood-boss", "gold-boss"):
        register_bot(db, name, ["kingdoms"], command=["true", name])
    tiers = [{"name": "wood", "boss": "wood-boss"}, {"name": "gold", "boss": "gold-boss"}]
    create_competition(db, "season", "kingdoms", now + timedelta(days=2), now, tiers=tiers)
    for name in BOTS[:2]:
        enter_competition(db, "season", name, now)
    apply_clock(db, now)
    # "table": a Swiss of 7 at 4 seats, 2 rounds, played to its winner: tables of 4 and 3.
    for name in SWISS_MORE:
        register_bot(db, name, ["kingdoms"], command=["true", name])
    create_competition(db, "table", "kingdoms", now + timedelta(hours=1), now, players=4,
                       finals={"format": "swiss", "rounds": 2, "best_of": 1})  # fmt: skip
    for name in (*BOTS, *SWISS_MORE):
        enter_competition(db, "table", name, now)

    def swiss_to_play(moment: datetime) -> list[str]:  # (the open tiers' ladders run beside it)
        return [name for name in apply_clock(db, moment).to_run if name.startswith("table.")]

    stage, number = swiss_to_play(later), 10  # no finals command: they start by themselves
    while stage:
        number += 1
        play_stage(db, stage, seed=number)
        stage = swiss_to_play(later + timedelta(minutes=number))
    # "twice": double elimination of 4 played to its winner, no finals command; "again": 2 entries,
    # its first meeting in play now.
    create_competition(db, "twice", "kingdoms", now + timedelta(hours=1), now,
                       finals={"format": "double_elimination", "best_of": 1})  # fmt: skip
    create_competition(db, "again", "kingdoms", now + timedelta(hours=1), now,
                       finals={"format": "double_elimination", "best_of": 1})  # fmt: skip
    for name in BOTS:
        enter_competition(db, "twice", name, now)
    for name in BOTS[:2]:
        enter_competition(db, "again", name, now)

    def double_to_play(moment: datetime) -> list[str]:
        return [name for name in apply_clock(db, moment).to_run if name.startswith("twice.")]

    stage, number = double_to_play(later), 30
    while stage:
        number += 1
        play_stage(db, stage, seed=number)
        stage = double_to_play(later + timedelta(minutes=number))
    again = leagues.get_league(db, "again.f1.0").id
    playing = leagues.claim_matches(db, again, 1)[0].match_id
    server = BackgroundWebServer(db)
    try:
        yield {"db": db, "url": server.url, "running": running, "playing": playing}
    finally:
        server.stop()
        db.close()


def css(browser: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(browser.find_elements(By.CSS_SELECTOR, selector))


def test_an_open_competition_counts_down_to_its_deadline(site: dict[str, Any], browser: Any) -> None:
    browser.get(f"{site['url']}/competitions/spring")
    assert css(browser, "#phase")[0].get_attribute("data-phase") == "open"
    first = css(browser, "#countdown")[0].text
    assert first.startswith("2d 0"), first  # 2 days 3 hours less the seconds the page took
    time.sleep(2.2)
    second = css(browser, "#countdown")[0].text
    assert second != first and second.startswith("2d 0")
    assert "No entry yet." in css(browser, "#entries")[0].text


def test_a_finished_bracket_shows_stages_standings_decisions_and_replays(
    site: dict[str, Any], browser: Any, tmp_path: Path
) -> None:
    with urllib.request.urlopen(f"{site['url']}/api/competitions/cup", timeout=10) as response:
        data = json.load(response)
    assert data["phase"] == "final" and data["winner"]
    browser.get(f"{site['url']}/competitions/cup")
    assert css(browser, "#winner")[0].text == f"Winner: {data['winner']}"
    # 4 entries: two pairs in stage 1, the final in stage 2.
    stages = [
        (s.get_attribute("data-stage"), s.get_attribute("data-slot")) for s in css(browser, "section.stage")
    ]
    assert stages == [("1", "0"), ("1", "1"), ("2", "0")]
    standings = [row.text.split()[1] for row in css(browser, "#standings tbody tr")]
    assert standings[0] == data["winner"] and sorted(standings) == sorted(BOTS)
    kinds = [item.get_attribute("data-kind") for item in css(browser, "#decisions li")]
    assert kinds.count("freeze") == 4 and kinds.count("eliminated") == 3 and kinds[-1] == "winner"
    # Every finals match (best of 1 duplicate pair: 2 a meeting) links to its replay.
    links = [
        a.get_attribute("href") for a in css(browser, "section.stage table.matches tbody tr td:first-child a")
    ]
    assert len(links) == 3 * 2
    browser.get(links[0])
    assert css(browser, "#board svg"), "the replay shows the board"


def test_a_finals_match_in_play_links_to_its_live_board(site: dict[str, Any], browser: Any) -> None:
    browser.get(f"{site['url']}/competitions/derby")
    assert css(browser, "#phase")[0].get_attribute("data-phase") == "finals"
    live = [a.get_attribute("href") for a in css(browser, "section.stage ul.in-play a")]
    assert live == [f"{site['url']}/matches/{site['running']}"]
    browser.get(live[0])
    assert css(browser, "section#live"), "the match page shows its live board"


def test_a_competition_with_tiers_shows_them_and_each_entry_s_tier(
    site: dict[str, Any], browser: Any
) -> None:
    browser.get(f"{site['url']}/competitions/season")
    tiers = [row.text for row in css(browser, "#tiers tbody tr")]
    assert tiers == ["gold gold-boss season.t2", "wood wood-boss season.t1"]  # the top tier first
    assert [cell.text for cell in css(browser, "#entries td.tier")] == ["wood", "wood"]
    standings = [row.text.split() for row in css(browser, "#standings tbody tr")]
    assert sorted(row[2] for row in standings) == sorted([*BOTS[:2], "wood-boss"])
    assert all(row[0] == "wood" for row in standings)
    assert [row[2] for row in standings if "boss" in row] == ["wood-boss"]


def test_a_bracket_is_drawn_as_a_tree_whose_meetings_link_their_matches(
    site: dict[str, Any], browser: Any
) -> None:
    browser.get(f"{site['url']}/competitions/cup")
    assert "best of 1 duplicate pairs." in browser.find_element("tag name", "main").text
    meetings = css(browser, "#bracket-tree g.meeting")
    assert [(m.get_attribute("data-stage"), m.get_attribute("data-slot")) for m in meetings] == [
        ("1", "0"), ("1", "1"), ("2", "0"),
    ]  # fmt: skip
    assert len(css(browser, "#bracket-tree path.edge")) == 2, "each first meeting joins the final"
    winner = css(browser, "#winner strong")[0].text
    crowned = css(browser, "#bracket-tree g[data-stage='2'] text.won")
    assert [text.get_attribute("data-bot") for text in crowned] == [winner]
    finals = [a.get_dom_attribute("href") for a in css(browser, "#bracket-tree a.meeting-link")]
    assert finals == ["/leagues/cup.f1.0", "/leagues/cup.f1.1", "/leagues/cup.f2.0"]
    first = css(browser, "#bracket-tree g[data-stage='1'] rect")[0].rect
    final = css(browser, "#bracket-tree g[data-stage='2'] rect")[0].rect
    assert final["x"] > first["x"], "a later stage stands to the right"
    browser.get(f"{site['url']}{finals[-1]}")
    assert css(browser, "table.matches tbody tr"), "the meeting's league lists its matches"
    browser.get(f"{site['url']}/competitions/derby")
    live = [a.get_dom_attribute("href") for a in css(browser, "#bracket-tree a.live")]
    assert live == [f"/matches/{site['running']}"], "the meeting in play links its live board"


def test_a_swiss_shows_each_round_s_tables_points_by_round_and_its_tie_break(
    site: dict[str, Any], browser: Any
) -> None:
    browser.get(f"{site['url']}/competitions/table")
    rounds = css(browser, "section.swiss-round")
    assert [r.get_attribute("data-round") for r in rounds] == ["1", "2"]
    for shown in rounds:
        sizes = [t.get_attribute("data-size") for t in shown.find_elements("css selector", "li.table")]
        assert sizes == ["4", "3"], "7 at 4 seats: a table of 4 and one of 3, nobody sits out"
    assert not css(browser, "p.byes")
    tie_break = css(browser, "#tie-break")[0].text
    assert "Buchholz" in tie_break and "higher rating" not in tie_break
    rows = css(browser, "#points-by-round tbody tr")
    assert len(rows) == 7
    for row in rows:  # each round's points add up to the total
        *by_round, total = [cell.text for cell in row.find_elements("css selector", "td.num")]
        assert abs(sum(float(p) for p in by_round) - float(total)) < 1e-6
    standings = [float(cell.text) for cell in css(browser, "#standings td.points")]
    assert standings == sorted(standings, reverse=True) and standings[0] <= 2.0


def test_a_double_elimination_is_drawn_as_three_trees_whose_meetings_link_their_matches(
    site: dict[str, Any], browser: Any
) -> None:
    browser.get(f"{site['url']}/competitions/twice")
    assert "double elimination" in css(browser, "main p")[0].text
    winner = css(browser, "#winner strong")[0].text

    def meetings(tree: str) -> list[tuple[str | None, str | None]]:
        found = css(browser, f"#bracket-tree #{tree} g.meeting")
        return [(m.get_attribute("data-round"), m.get_attribute("data-stage")) for m in found]

    # 4 entries: winners' rounds 1-2 (stages 1-2), losers' rounds 1-2 (stages 2-3), the grand
    # final (stage 4) and its reset (stage 5).
    assert meetings("winners-bracket") == [("1", "1"), ("1", "1"), ("2", "2")]
    assert meetings("losers-bracket") == [("1", "2"), ("2", "3")]
    assert meetings("grand-final") == [("1", "4"), ("1", "5")]
    titles = [t.text for t in css(browser, "#bracket-tree text.tree-title")]
    assert titles == ["Winners' bracket", "Losers' bracket", "Grand final"]
    winners_box = css(browser, "#winners-bracket rect")[0].rect
    losers_box = css(browser, "#losers-bracket rect")[0].rect
    final_box = css(browser, "#grand-final rect")[0].rect
    assert losers_box["y"] > winners_box["y"], "the losers' bracket is drawn below the winners'"
    assert final_box["x"] > winners_box["x"], "the grand final stands to the right"
    assert len(css(browser, "#winners-bracket path.edge")) == 3, (
        "two to the winners' final, it to the grand final"
    )
    reset = css(browser, "#grand-final g[data-side='reset']")[0]
    crowned = css(browser, "#grand-final text.won")
    assert [t.get_attribute("data-bot") for t in crowned][-1] == winner
    played = reset.get_attribute("data-played") != "no"
    links = [a.get_dom_attribute("href") for a in css(browser, "#bracket-tree a.meeting-link")]
    assert links[:3] == ["/leagues/twice.f1.0", "/leagues/twice.f1.1", "/leagues/twice.f2.0"]
    assert len(links) == 3 + 2 + 1 + played, "every meeting played links its league"
    browser.get(f"{site['url']}{links[-1]}")
    assert css(browser, "table.matches tbody tr"), "the meeting's league lists its matches"
    browser.get(f"{site['url']}/competitions/again")
    live = [a.get_dom_attribute("href") for a in css(browser, "#bracket-tree a.live")]
    assert live == [f"/matches/{site['playing']}"], "the meeting in play links its live board"
    waiting = [t.text for t in css(browser, "#grand-final text.entry")]
    assert "winner of W1.1" in waiting and "loser of W1.1" in waiting, "seats to come say what they wait for"
