"""The replay page beside each step shows what the signed-in author's own bot printed on stderr
while answering that request, read with their console session; another author, and a viewer not
signed in, see none of it (page and JSON); nothing shows while a match sharing the seed is not
over. In Chromium, the page's script draws the same output as it steps."""

from __future__ import annotations

import html
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from stepping_bot import STEPPING
from test_console_sessions import Browser
from web_support import chromium_available, sign_in, start_chromium, wait_for

from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.matches.matches import schedule_match, void_match
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.serve import BackgroundWebServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc


@pytest.fixture
def site(server: BackgroundServer, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """ann's and ben's stepping bots play a stored one-off (seed 5); the site runs beside."""
    db = server.server.db
    ann, ann_token = authors.add_author(db, "ann")
    ben, ben_token = authors.add_author(db, "ben")
    script = tmp_path / "stepping.py"
    script.write_text(STEPPING)
    ids = [
        bots.register_bot(db, name, ["kingdoms"], [sys.executable, str(script), "0"], author_id=author.id)[
            0
        ].id
        for name, author in (("annbot", ann), ("benbot", ben))
    ]
    request = admin_pb2.RunMatchRequest(
        game="kingdoms", seats=[admin_pb2.MatchSeat(bot="annbot"), admin_pb2.MatchSeat(bot="benbot")], seed=5
    )
    with grpc.insecure_channel(server.address) as channel:
        record = admin_pb2_grpc.AdminStub(channel).RunMatch(
            request, metadata=(("authorization", f"Bearer {server.admin_token}"),), timeout=300
        )
    running = BackgroundWebServer(db, admin_address=server.address)
    try:
        yield {
            "url": running.url,
            "ann": ann_token,
            "ben": ben_token,
            "db": db,
            "match": record.match_id,
            "ids": ids,
        }
    finally:
        running.stop()


def signed_in(site: dict[str, Any], who: str) -> Browser:
    browser = Browser(site["url"])
    status, _, page = browser.sign_in(site[who])
    assert status in (200, 303), page
    return browser


def own_lines(page: str) -> list[str]:
    return [
        html.unescape(text)
        for text in re.findall(r'<pre class="own-text" data-seat="\d">(.*?)</pre>', page, re.S)
    ]


def test_the_owner_reads_each_steps_own_line_beside_it(site: dict[str, Any]) -> None:
    ann = signed_in(site, "ann")
    match = site["match"]
    printed = 0
    for step in range(1, 12):
        status, headers, text = ann.request("GET", f"/api/matches/{match}/steps/{step}")
        assert status == 200, text
        data = json.loads(text)
        own = data["own_output"]
        acted = [move["seat"] for move in data["moves"]]
        mine = own["seats"]
        assert all(seat["bot"] == "annbot" for seat in mine), "ann reads her own seat only"
        if 0 in acted:  # annbot (seat 0) answered this step's request: exactly its line
            printed += 1
            (seat,) = mine
            assert seat["text"] == f"step line {printed} of request " + seat["text"].split()[-1] + "\n"
            assert headers["cache-control"] == "private, no-store"
            status, _, page = ann.request("GET", f"/matches/{match}?step={step}")
            assert own_lines(page) == [seat["text"]], "the page shows the same line beside the step"
        else:
            assert mine == [], "a step ann's bot was not asked at shows nothing of hers"
    assert printed >= 3


def test_another_author_and_anyone_read_none_of_it(site: dict[str, Any]) -> None:
    match = site["match"]
    ben = signed_in(site, "ben")
    anyone = Browser(site["url"])
    for step in range(1, 8):
        _, _, text = ben.request("GET", f"/api/matches/{match}/steps/{step}")
        assert "annbot" not in str(json.loads(text)["own_output"]), "ann's output shown to ben"
        _, _, page = ben.request("GET", f"/matches/{match}?step={step}")
        assert all(line.startswith("step line") for line in own_lines(page))
        assert 'data-seat="0">step line' not in page
        status, _, text = anyone.request("GET", f"/api/matches/{match}/steps/{step}")
        assert status == 200 and json.loads(text)["own_output"] is None
        _, _, page = anyone.request("GET", f"/matches/{match}?step={step}")
        assert "step line" not in page and "own-output" not in page


def test_nothing_shows_while_a_twin_is_not_over(site: dict[str, Any]) -> None:
    db, match = site["db"], site["match"]
    with db.transaction() as session:
        twin = schedule_match(session, game="kingdoms", seed=5, options={}, bot_ids=site["ids"])
        twin_id = twin.id
    ann = signed_in(site, "ann")
    status, _, page = ann.request("GET", f"/matches/{match}?step=2")
    assert status == 200 and "step line" not in page and "own-output" not in page
    status, _, text = ann.request("GET", f"/api/matches/{match}/steps/2")
    assert status == 404 and "step line" not in text
    assert twin_id is not None
    void_match(db, twin_id, "not played")
    _, _, page = ann.request("GET", f"/matches/{match}?step=2")
    assert "own-output" in page


@pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")
def test_stepping_in_chromium_shows_each_steps_own_output(site: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    match = site["match"]
    expected = {}
    ann = signed_in(site, "ann")
    for step in range(1, 9):
        _, _, text = ann.request("GET", f"/api/matches/{match}/steps/{step}")
        expected[step] = [seat["text"].rstrip("\n") for seat in json.loads(text)["own_output"]["seats"]]
    assert any(expected.values()) and not all(expected.values()), "some steps are ann's, some not"
    driver = start_chromium(1200, 900)
    try:
        sign_in(driver, site["url"], site["ann"])
        driver.get(f"{site['url']}/matches/{match}?step=1")
        for step in range(1, 9):
            wait_for(
                driver,
                lambda d, n=step: d.find_element(By.ID, "replay").get_attribute("data-shown") == f"{n}/full",
            )
            shown = [pre.text for pre in driver.find_elements(By.CSS_SELECTOR, "#own-output pre.own-text")]
            assert shown == expected[step], step
            if not shown:
                assert "printed nothing" in driver.find_element(By.ID, "own-output").text
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        driver.get(f"{site['url']}/console")
        driver.find_element(By.ID, "sign-out").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "sign-in"))
        sign_in(driver, site["url"], site["ben"])
        driver.get(f"{site['url']}/matches/{match}?step=1")
        seats = []
        for step in range(1, 9):
            wait_for(
                driver,
                lambda d, n=step: d.find_element(By.ID, "replay").get_attribute("data-shown") == f"{n}/full",
            )
            assert "annbot" not in driver.find_element(By.ID, "own-output").text
            seats += [
                pre.get_attribute("data-seat")
                for pre in driver.find_elements(By.CSS_SELECTOR, "pre.own-text")
            ]
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        assert seats and set(seats) == {"1"}, "ben reads his own seat's output, and only that"
    finally:
        driver.quit()
