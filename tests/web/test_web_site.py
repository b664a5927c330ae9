"""The website driven in a real headless Chromium (Debian's package, through Selenium): standings,
a bot, a league updating itself while it runs, and a replay of one match of every game, checked
against the stored match and the engine."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_support import chromium_available, one_match, play_and_record

from kingmaker.games import serial
from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.match_reads import match_log, match_seats
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.ratings.standings import standings
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server.web.scores import running_scores
from kingmaker.server.web.serve import BackgroundWebServer

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")

GAMES = ("kingdoms", "kingsburg", "kings_road", "kingsville")
BOTS = ("ada", "brick", "cyd")
STDERR = "Traceback: my-secret-api-key=hunter2"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("web")
    db = open_database(f"sqlite:///{folder / 'ladder.db'}")
    tokens = [register_bot(db, name, list(GAMES))[1] for name in BOTS]
    matches = {game: one_match(db, game, BOTS, seed=11 + index) for index, game in enumerate(GAMES)}
    matches["with-stderr"] = one_match(db, "kings_road", BOTS, seed=8, stderr=STDERR)
    matches["kingdoms-2"] = one_match(db, "kingdoms", BOTS[:2], seed=5)
    running = create_match(db, "kingdoms", BOTS[1:], seed=99)
    mark_running(db, running.match_id)
    server = BackgroundWebServer(db)
    try:
        yield {"db": db, "url": server.url, "matches": matches, "running": running.match_id, "tokens": tokens}
    finally:
        server.stop()
        db.close()


def wait_for(browser: Any, condition: Any, timeout: float = 10) -> Any:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, timeout, 0.05, ignored_exceptions=[StaleElementReferenceException])
    return wait.until(lambda _: condition())


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def css(browser: Any, selector: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(browser.find_elements(By.CSS_SELECTOR, selector))


def test_standings_list_the_ladder_in_order_and_link_to_bots(site: dict[str, Any], browser: Any) -> None:
    browser.get(site["url"] + "/standings/kingdoms")
    rows = css(browser, "#standings tbody tr")
    expected = standings(site["db"], "kingdoms")
    assert [row.find_elements("css selector", "td")[1].text for row in rows] == [s.bot for s in expected]
    assert get_json(site["url"] + "/api/standings/kingdoms")["rows"][0]["bot"] == expected[0].bot
    rows[0].find_element("css selector", "a").click()
    wait_for(browser, lambda: browser.current_url.endswith("/bots/" + expected[0].bot))


def test_a_bot_page_plots_its_rating_and_lists_results_matches_and_no_secret(
    site: dict[str, Any], browser: Any
) -> None:
    browser.get(site["url"] + "/bots/ada")
    games = [row.get_attribute("data-game") for row in css(browser, "#results tbody tr")]
    assert games == sorted(GAMES)
    plot = css(browser, 'figure.plot[data-game="kingdoms"] polyline.conservative')[0]
    assert plot.get_attribute("data-points") == "2"  # ada played two rated Kingdoms matches
    listed = {int(row.get_attribute("data-match")) for row in css(browser, "table.matches tbody tr")}
    assert {site["matches"][game] for game in GAMES} <= listed
    assert css(browser, "#faults")[0].text == "No fault."
    data = get_json(site["url"] + "/api/bots/ada")
    text = json.dumps(data)
    assert "token" not in text and "stderr" not in text and "command" not in text
    assert data["results"][0]["game"] == "kingdoms"


def test_a_running_match_shows_no_state_and_bad_requests_get_one_line(site: dict[str, Any]) -> None:
    data = get_json(f"{site['url']}/api/matches/{site['running']}")
    assert data["status"] == "running"
    assert "unavailable" in data["replay"] and data["seed"] is None
    assert all(seat["score"] is None for seat in data["seats"])
    for path, status in (
        (f"/api/matches/{site['running']}/steps/0", 404),
        ("/api/standings/kingdoms?page=0", 400),
        ("/api/standings/chess", 404),
        ("/api/bots/nobody", 404),
        (f"/api/matches/{site['matches']['kingdoms']}/steps/100000", 400),
        (f"/api/matches/{site['matches']['kingdoms']}/steps/0?view=7", 400),
    ):
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(site["url"] + path, timeout=10)
        assert caught.value.code == status
        message = json.load(caught.value)["error"]
        assert message and "\n" not in message


def test_a_league_page_updates_itself_while_the_league_runs(site: dict[str, Any], browser: Any) -> None:
    db: Database = site["db"]
    league = create_league(db, "weekly", "kingsburg", list(BOTS), players=2, seed=3)
    browser.get(site["url"] + "/leagues/weekly")
    # Read in one go: the server pushes the live part at once on connecting, and swaps it.
    texts = "return ['#done', '#state'].map(s => document.querySelector(s).textContent)"
    assert browser.execute_script(texts) == ["0", "running"]
    browser.execute_script("window.notReloaded = true")
    played = 0
    for ticket in iter(lambda: next_matches(db, league.id, 1), []):
        play_and_record(db, ticket[0], seed=played)
        played += 1
        # Read the live part in one go: it is swapped while the page polls.
        wait_for(browser, lambda n=played: live(browser) == (str(n), n))
    wait_for(browser, lambda: browser.execute_script("return document.querySelector('#state').textContent")
             == "finished")  # fmt: skip
    assert browser.execute_script("return window.notReloaded") is True
    # Pushed, not polled: one stream of events, and no request for the live part.
    fetched = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert [url for url in fetched if "/leagues/weekly/" in url] == [
        site["url"] + "/leagues/weekly/events?page=1"
    ]
    cells = browser.execute_script(
        "return [...document.querySelectorAll('#crosstable tbody tr')]"
        ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent))"
    )
    # The crosstable from the stored seats: row bot placed ahead of column bot.
    ahead = [[0] * len(BOTS) for _ in BOTS]
    for match in get_json(site["url"] + "/api/leagues/weekly")["matches"]:
        for mine in match["seats"]:
            for theirs in match["seats"]:
                if mine["rank"] < theirs["rank"]:
                    ahead[BOTS.index(mine["bot"])][BOTS.index(theirs["bot"])] += 1
    expected = [["—" if a == b else str(ahead[a][b]) for b in range(len(BOTS))] for a in range(len(BOTS))]
    assert cells == expected and played == 3
    # How often each pair met (a round robin of 3 bots: each pair once), from the maintained rows.
    met = browser.execute_script(
        "return [...document.querySelectorAll('#meetings tbody tr')]"
        ".map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent))"
    )
    assert met == [["—" if a == b else "1" for b in range(len(BOTS))] for a in range(len(BOTS))]


def live(browser: Any) -> tuple[str, int]:
    """The done counter and how many finished matches the league page lists."""
    done, rows = browser.execute_script(
        "return [document.querySelector('#done').textContent,"
        " document.querySelectorAll('#live table.matches tr[data-status=finished]').length]"
    )
    return done, rows


def step_to(browser: Any, step: int) -> None:
    """Home, then the right-arrow key ``step`` times, as a person would."""
    from selenium.webdriver.common.keys import Keys

    body = css(browser, "body")[0]
    body.send_keys(Keys.HOME)
    for _ in range(step):
        body.send_keys(Keys.ARROW_RIGHT)
    view = css(browser, "#view")[0].get_attribute("value")
    wait_for(browser, lambda: css(browser, "#replay")[0].get_attribute("data-shown") == f"{step}/{view}")
    assert browser.current_url.endswith(f"?view={view}&step={step}")  # the address links to this moment


def engine_at(game: str, log: Any, players: int, step: int) -> Any:
    """The engine's own state after ``step`` decisions of the stored log."""
    engine = get_game(game)
    state = engine.new(players, log.seed, log.options)
    for joint in log.actions[:step]:
        state.apply({int(seat): serial.action_from_data(engine.spec, data) for seat, data in joint.items()})
    return state


def first_step(log: Any, kind: str) -> int:
    """The number of the first decision whose action is a ``kind`` (1-based: the step after it)."""
    return next(n for n, joint in enumerate(log.actions, 1) if any(a["type"] == kind for a in joint.values()))


@pytest.mark.parametrize("game", GAMES)
def test_the_replay_steps_through_the_stored_match(site: dict[str, Any], browser: Any, game: str) -> None:
    db: Database = site["db"]
    match_id = site["matches"][game]
    log, seats = match_log(db, match_id), match_seats(db, match_id)
    browser.get(f"{site['url']}/matches/{match_id}")
    wait_for(browser, lambda: css(browser, "#replay")[0].get_attribute("data-shown") == "0/full")
    assert css(browser, "#board svg")
    steps = len(log.actions)
    # The last step: the scores the page shows are the ones stored for the match.
    css(browser, "#last")[0].click()
    wait_for(browser, lambda: css(browser, "#replay")[0].get_attribute("data-shown") == f"{steps}/full")
    shown = [int(cell.text) for cell in css(browser, "#scores td.score")]
    assert shown == [seat.score for seat in seats]
    # A step in the middle: who played what (with the time), and the board the engine says.
    placing = {"kingdoms": "PlaceDrawnTile", "kingsburg": "Construct", "kings_road": "PlayCards"}
    step = first_step(log, placing.get(game, "Recruit"))
    step_to(browser, step)
    moves = css(browser, "#moves li.move")
    assert [json.loads(m.get_attribute("data-action")) for m in moves] == list(log.actions[step - 1].values())
    assert all(" ms" in m.text for m in moves)
    state = engine_at(game, log, len(seats), step)
    view = serial.to_data(state.observation(0))
    assert [int(cell.text) for cell in css(browser, "#scores td.score")] == list(running_scores(game, view))
    action = next(iter(log.actions[step - 1].values()))
    if game == "kingdoms":
        cell = css(browser, f'g.cell[data-row="{action["row"]}"][data-column="{action["column"]}"]')[0]
        placed = view["board"][action["row"]]["cells"][action["column"]]["tile"]["name"]
        assert cell.get_attribute("data-tile") == placed
    elif game == "kingsburg":
        seat = int(next(iter(log.actions[step - 1])))
        built = css(browser, f'g.province[data-seat="{seat}"] rect[data-building="{action["building"]}"]')[0]
        assert built.get_attribute("data-built") == "yes"
    elif game == "kings_road":
        for region in view["regions"]:
            shown_markers = css(browser, f'g.region[data-region="{region["number"]}"]')[0]
            assert shown_markers.get_attribute("data-markers") == " ".join(map(str, region["markers"]))
    else:
        seat = int(next(iter(log.actions[step - 1])))
        people = [slot["person"] for slot in view["castles"][seat]["slots"]]
        drawn = [
            r.get_attribute("data-person") or None
            for r in css(browser, f'g.castle[data-seat="{seat}"] rect[data-slot]')
        ]
        assert drawn == people and action["person"] in drawn


def test_a_seat_view_hides_what_only_another_seat_saw(site: dict[str, Any], browser: Any) -> None:
    from selenium.webdriver.support.ui import Select

    match_id = site["matches"]["kingdoms"]
    log = match_log(site["db"], match_id)
    step = first_step(log, "DrawTile")  # a tile drawn and not yet placed: only its drawer sees it
    drawer = int(next(iter(log.actions[step - 1])))
    other = (drawer + 1) % 3
    browser.get(f"{site['url']}/matches/{match_id}")
    wait_for(browser, lambda: css(browser, "#replay")[0].get_attribute("data-shown") == "0/full")
    step_to(browser, step)
    tile = engine_at("kingdoms", log, 3, step).observation(drawer).drawn_tile.name
    assert f"drawn: {tile}" in css(browser, "#board")[0].text
    assert any(f"drew {tile}" in event.text for event in css(browser, "#chance li"))
    Select(css(browser, "#view")[0]).select_by_value(f"seat:{other}")
    wait_for(
        browser, lambda: css(browser, "#replay")[0].get_attribute("data-shown") == f"{step}/seat:{other}"
    )
    assert f"drawn: {tile}" not in css(browser, "#board")[0].text
    assert not any(tile in event.text for event in css(browser, "#chance li"))
    Select(css(browser, "#view")[0]).select_by_value(f"seat:{drawer}")
    wait_for(
        browser, lambda: css(browser, "#replay")[0].get_attribute("data-shown") == f"{step}/seat:{drawer}"
    )
    assert f"drawn: {tile}" in css(browser, "#board")[0].text


def test_every_page_is_served_from_the_package(site: dict[str, Any]) -> None:
    import kingmaker.server.web as web

    folder = Path(web.__file__).parent
    assert (folder / "templates" / "match.html").is_file() and (folder / "static" / "replay.js").is_file()
    with urllib.request.urlopen(site["url"] + "/static/replay.js", timeout=10) as response:
        assert b"keydown" in response.read()


def test_standings_are_paged(site: dict[str, Any], browser: Any) -> None:
    from sqlmodel import select

    from kingmaker.ladder.storage.models import Rating

    db: Database = site["db"]
    extra = [register_bot(db, f"filler{i:02d}", ["kings_road"])[0] for i in range(55)]
    with db.transaction() as session:
        for index, bot in enumerate(extra):
            row = session.exec(
                select(Rating).where(Rating.bot_id == bot.id, Rating.game == "kings_road")
            ).one()
            row.mu, row.sigma, row.conservative = 10.0 + index / 10, 1.0, 7.0 + index / 10
            session.add(row)
    total = len(standings(db, "kings_road"))
    browser.get(site["url"] + "/standings/kings_road")
    first = [row.text.split()[1] for row in css(browser, "#standings tbody tr")]
    css(browser, "a[rel=next]")[0].click()
    wait_for(browser, lambda: browser.current_url.endswith("?page=2"))
    second = [row.text.split()[1] for row in css(browser, "#standings tbody tr")]
    assert len(first) == 50 and len(second) == total - 50
    assert first + second == [row.bot for row in standings(db, "kings_road")]
    assert not css(browser, "a[rel=next]")


def test_no_page_shows_a_token_or_a_bots_stderr(site: dict[str, Any]) -> None:
    match_id = site["matches"]["with-stderr"]
    assert match_seats(site["db"], match_id)[0].stderr_tail == STDERR  # the ladder keeps it
    paths = [f"/matches/{match_id}", f"/api/matches/{match_id}", f"/api/matches/{match_id}/steps/3"]
    for bot in BOTS:
        paths += [f"/bots/{bot}", f"/api/bots/{bot}"]
    paths += ["/", "/api", "/standings/kings_road", "/api/standings/kings_road"]
    for path in paths:
        with urllib.request.urlopen(site["url"] + path, timeout=10) as response:
            page = response.read().decode()
        assert "hunter2" not in page and "Traceback" not in page, path
        assert not any(token in page for token in site["tokens"]), path


def test_a_link_to_a_moment_opens_there_and_the_keys_step_on(site: dict[str, Any], browser: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    match_id = site["matches"]["kingsburg"]
    browser.get(f"{site['url']}/matches/{match_id}?step=5&view=seat:1")
    assert css(browser, "#replay")[0].get_attribute("data-shown") == "5/seat:1"  # rendered by the server
    assert css(browser, "#view")[0].get_attribute("value") == "seat:1"
    css(browser, "body")[0].send_keys(Keys.ARROW_RIGHT)
    wait_for(browser, lambda: css(browser, "#replay")[0].get_attribute("data-shown") == "6/seat:1")
    assert browser.current_url.endswith("?view=seat:1&step=6") and css(browser, "#step")[0].text == "6"
    css(browser, "#prev")[0].click()
    wait_for(browser, lambda: browser.current_url.endswith("?view=seat:1&step=5"))
