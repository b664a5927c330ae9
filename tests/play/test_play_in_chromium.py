"""A person plays in Chromium: signed in as ann, she sits down at each game against random bots
and plays it to the end by clicking legal actions chosen at random; the match is stored. A
click posted by hand that is not legal is refused with the reason and changes nothing; a tab
closed mid-match costs the seat once its clock runs out, and the bots finish with no fault.

With ``KINGMAKER_PLAY_SCREENSHOTS=FOLDER`` it saves docs/play-GAME.png there, and
docs/play-GAME-choices.png (the choices of a decision in several groups)."""

from __future__ import annotations

import os
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from play_support import WAIT, Table, stored

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))
from web_support import chromium_available, sign_in, start_chromium, wait_for

from kingmaker.games.registry import game_names
from kingmaker.ladder.bots import bots
from kingmaker.server.web.serve import BackgroundWebServer

pytestmark = pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")


@pytest.fixture
def site(table: Table) -> Iterator[str]:
    web = BackgroundWebServer(table.server.server.db, admin_address=table.server.address)
    try:
        yield web.url
    finally:
        web.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for the module (2 CPU-s a start); each test signs in on a site of its own."""
    driver = start_chromium()
    try:
        yield driver
    finally:
        driver.quit()


def sit_down(
    driver: Any, site: str, game: str, opponents: int, bank_minutes: int = 5, named: tuple[str, ...] = ()
) -> None:
    """Sit down at ``game`` against the first ``opponents`` bots listed (or the bots ``named``)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver.get(f"{site}/play")
    form = driver.find_element(By.ID, f"setup-{game}")
    selects = form.find_elements(By.NAME, "opponent")
    for number, select in enumerate(selects):
        choice = Select(select)
        if number < len(named):
            choice.select_by_value(named[number])
        elif number < opponents:
            choice.select_by_index(number + (0 if select.get_attribute("required") else 1))
        else:
            choice.select_by_value("")
    bank = form.find_element(By.NAME, "bank_minutes")
    bank.clear()
    bank.send_keys(str(bank_minutes))
    form.find_element(By.CLASS_NAME, "play-start").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "play") and page_state(d)["match"])


def page_state(driver: Any) -> dict[str, str]:
    return driver.execute_script(  # type: ignore[no-any-return]
        "const s = document.getElementById('play');"
        "return s ? {request: s.dataset.request || '', over: s.dataset.over || '',"
        " end: s.dataset.endReason || '', match: s.dataset.match || '', version: s.dataset.version,"
        " step: s.dataset.step || '0',"
        " moves: (document.getElementById('play-moves') || {}).textContent || ''} : {};"
    )


def click_until_the_end(driver: Any, rng: random.Random, shot: str | None = None) -> dict[str, str]:
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + WAIT
    clicks = 0
    grouped = False
    while time.monotonic() < deadline:
        state = wait_for(driver, lambda d: s if ((s := page_state(d))["over"] or s["request"]) else None)
        if state["over"]:
            return state
        buttons = driver.find_elements(By.CSS_SELECTOR, ".play-action:not([disabled])")
        if not buttons:
            continue
        if shot and clicks == 3:
            save_screenshot(driver, shot)
        groups = len(driver.find_elements(By.CSS_SELECTOR, ".play-group"))
        if shot and not grouped and groups >= 3:  # the choices of a decision in several groups
            save_screenshot(driver, f"{shot}-choices", at="play-narrow", height=700)
            grouped = True
        rng.choice(buttons).click()
        clicks += 1
        answered = state["request"]
        wait_for(driver, lambda d, old=answered: page_state(d)["request"] != old or page_state(d)["over"])
    raise AssertionError("the match did not end")


def answered_by_clicking(driver: Any, button: Any, request: str) -> dict[str, str]:
    """Click ``button``, wait until ``request`` is answered (a new one open, or the match over)
    with no refusal shown, and return the page's state then. Between the answer and the next
    request the server's view has no request open, at the same step: no request is not yet an
    answer."""
    from selenium.webdriver.common.by import By

    def refused(d: Any) -> bool:
        return bool(d.find_element(By.ID, "play-refusal").is_displayed())

    def answered(d: Any) -> dict[str, str] | None:
        state = page_state(d)
        moved_on = state["request"] not in ("", request) or state["over"]
        return state if moved_on or refused(d) else None

    button.click()
    after: dict[str, str] = wait_for(driver, answered)
    assert not refused(driver), driver.find_element(By.ID, "play-refusal").text
    return after


def save_screenshot(driver: Any, name: str, at: str = "", height: int = 1400) -> None:
    """The page from its top, or from element ``at`` (an id) when given."""
    folder = os.environ.get("KINGMAKER_PLAY_SCREENSHOTS")
    if folder:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))
        from make_screenshots import save

        driver.set_window_size(1280, height)
        if at:
            driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", at)
        else:
            driver.execute_script("window.scrollTo(0, 0)")
        save(driver.get_screenshot_as_png(), Path(folder) / f"play-{name}.png")


@pytest.mark.parametrize("game", game_names())
def test_a_full_match_played_by_clicking(table: Table, site: str, browser: Any, game: str) -> None:
    sign_in(browser, site, table.ann)
    sit_down(browser, site, game, opponents=2)
    state = click_until_the_end(browser, random.Random(5), shot=game)
    assert state["end"] == "finished"
    match = stored(table, state["match"])
    assert not match.rated and match.status_reason.startswith("with people: person:ann")
    assert match.reasons == ["finished"] * 3


@pytest.mark.parametrize("game", ["kingdoms", "kings_road"])
def test_a_board_click_narrows_the_choices_to_what_it_touches(
    table: Table, site: str, browser: Any, game: str
) -> None:
    """A Kingdoms cell or a King's Road region clicked on the board leaves only the legal actions
    that place there; the one clicked then is sent as any choice."""
    from selenium.webdriver.common.by import By

    sign_in(browser, site, table.ann)
    sit_down(browser, site, game, opponents=1)
    state = wait_for(browser, lambda d: (s := page_state(d))["request"] and s)
    every = len(browser.find_elements(By.CSS_SELECTOR, ".play-action"))
    target = browser.find_elements(By.CSS_SELECTOR, "#board .play-target")[0]
    mark = target.get_attribute("data-play-mark")
    target.click()
    shown = [b for b in browser.find_elements(By.CSS_SELECTOR, ".play-action") if b.is_displayed()]
    assert 0 < len(shown) < every
    assert all(mark in b.get_attribute("data-marks").split(" ") for b in shown)
    hidden = every - len(shown)
    assert hidden == sum(
        mark not in b.get_attribute("data-marks").split(" ")
        for b in browser.find_elements(By.CSS_SELECTOR, ".play-action")
    )
    answered_by_clicking(browser, shown[0], state["request"])


def test_an_illegal_action_posted_by_hand_is_refused(table: Table, site: str, browser: Any) -> None:
    sign_in(browser, site, table.ann)
    sit_down(browser, site, "kingdoms", opponents=1)
    state = wait_for(browser, lambda d: (s := page_state(d))["request"] and s)
    status, body = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const csrf = document.getElementById('play').dataset.csrf;"
        "fetch('/api/play/answer', {method: 'POST', headers: {'content-type': 'application/json',"
        " 'x-csrf-token': csrf}, body: JSON.stringify({request_id: Number(arguments[0]), index: 100000})})"
        ".then(async r => done([r.status, await r.json()]));",
        state["request"],
    )
    assert status == 409 and "not one of the" in body["error"]
    after = page_state(browser)
    assert after["request"] == state["request"] and after["version"] == state["version"]
    view = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/play').then(async r => done(await r.json()));"
    )
    assert view["request_id"] == int(state["request"]) and not view["notes"]
    # The request refused by hand is still open: a legal click answers it and the match goes on.
    # (A whole match after it cost 15 CPU-s and showed no more: the full matches above play one.)
    from selenium.webdriver.common.by import By

    legal = browser.find_elements(By.CSS_SELECTOR, ".play-action:not([disabled])")[0]
    after_click = answered_by_clicking(browser, legal, state["request"])
    assert int(after_click["step"]) > int(state["step"])


def test_a_closed_tab_loses_the_seat_after_its_clock(table: Table, site: str, browser: Any) -> None:
    sign_in(browser, site, table.ann)
    sit_down(browser, site, "kingdoms", opponents=2, bank_minutes=1)
    state = wait_for(browser, lambda d: (s := page_state(d))["request"] and s)
    browser.get("about:blank")  # the tab is gone; the seat's clock runs on at the server
    match = stored(table, state["match"])
    assert match.reasons == ["timeout", "finished", "finished"]


def test_the_other_seats_moves_show_as_they_happen(table: Table, site: str, browser: Any) -> None:
    """Two bots that think 0.6 s a move: after the person's move, the page shows a bot's move, on
    the board and in the list, while no request is open (the other bot still thinks)."""
    from selenium.webdriver.common.by import By

    db = table.server.server.db
    pondering = [sys.executable, str(Path(__file__).resolve().parent / "pondering_bot.py")]
    for name in ("ponder", "mull"):
        bots.register_bot(db, name, ["kingdoms"], pondering)
    sign_in(browser, site, table.ann)
    sit_down(browser, site, "kingdoms", opponents=2, named=("ponder", "mull"))
    state = wait_for(browser, lambda d: (s := page_state(d))["request"] and s)
    board = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    browser.find_elements(By.CSS_SELECTOR, ".play-action")[0].click()
    mine = int(state["step"]) + 1
    between = wait_for(  # a bot's move after the person's, shown while the other bot still thinks
        browser, lambda d: (s := page_state(d))["request"] == "" and int(s["step"]) > mine and s
    )
    assert re.match(rf"move {int(between['step'])}: (ponder \(seat 1\)|mull \(seat 2\))", between["moves"])
    assert f"move {mine}: you" in between["moves"]
    assert browser.find_element(By.ID, "board").get_attribute("innerHTML") != board
    after = wait_for(browser, lambda d: (s := page_state(d))["request"] not in ("", state["request"]) and s)
    assert int(after["step"]) >= int(between["step"])
    if os.environ.get("KINGMAKER_PLAY_SCREENSHOTS"):
        save_screenshot(browser, "moves", at="play-actions")
