"""Issue 43, finding 5 on the website: no response said CSP, ``X-Content-Type-Options`` or
frame headers (the JSON of a bot's output could be sniffed as HTML), and a bot's control
characters reached pages as they were. Every response (page, JSON, static file, error, event
stream) carries the policy; the pages still work under it in Chromium (no violation logged); and
what a bot printed shows its control characters as escapes."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from hostile_text import CONTROL, HOSTILE, SHOWN
from test_console_sessions import Browser
from web_support import chromium_available, one_match, start_chromium

from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.serve import BackgroundWebServer


@pytest.fixture
def site(server: BackgroundServer) -> Iterator[dict[str, Any]]:
    db = server.server.db
    ann_author, ann = authors.add_author(db, "ann")
    bots.register_bot(db, "annbot", ["kingdoms"], None, author_id=ann_author.id)
    bots.register_bot(db, "rival", ["kingdoms"], None)
    played = one_match(db, "kingdoms", ["annbot", "rival"], 3, stderr=HOSTILE)
    running = create_match(db, "kingdoms", ["rival", "annbot"], seed=4)
    mark_running(db, running.match_id)
    web = BackgroundWebServer(db, admin_address=server.address)
    try:
        yield {"url": web.url, "ann": ann, "played": played, "running": running.match_id}
    finally:
        web.stop()


def headers_of(url: str, path: str, cookie: str = "") -> dict[str, str]:
    """The response's headers (its body, a stream's included, is not read)."""
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    try:
        connection.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        response = connection.getresponse()
        return {name.lower(): value for name, value in response.getheaders()} | {
            ":status": str(response.status)
        }
    finally:
        connection.close()


def test_every_response_forbids_sniffing_framing_and_foreign_scripts(site: dict[str, Any]) -> None:
    ann = Browser(site["url"])
    assert ann.sign_in(site["ann"])[0] == 303
    played, running = site["played"], site["running"]
    paths = {
        "/": "200", "/api": "200", f"/matches/{played}": "200", f"/api/matches/{played}": "200",
        f"/api/matches/{played}/steps/1": "200", "/static/site.css": "200", "/static/replay.js": "200",
        "/nowhere": "404", "/api/bots/nobody": "404", "/console": "200", "/api/console": "200",
        f"/api/console/bots/annbot/matches/{played}": "200", f"/api/matches/{running}/live": "200",
        "/leagues/none/events": "404",
    }  # fmt: skip
    for path, status in paths.items():
        headers = headers_of(site["url"], path, ann.cookie)
        assert headers[":status"] == status, (path, headers)
        assert headers.get("x-content-type-options") == "nosniff", path
        assert headers.get("x-frame-options") == "DENY", path
        policy = headers.get("content-security-policy", "")
        for directive in (
            "default-src 'self'",
            "script-src 'self'",
            "frame-ancestors 'none'",
            "object-src 'none'",
        ):
            assert directive in policy, (path, policy)
        assert "'unsafe-eval'" not in policy and "script-src 'self' 'unsafe-inline'" not in policy


def test_a_bots_control_characters_show_as_escapes_in_pages(site: dict[str, Any]) -> None:
    ann = Browser(site["url"])
    assert ann.sign_in(site["ann"])[0] == 303
    status, _, page = ann.request("GET", f"/console/bots/annbot/matches/{site['played']}")
    assert status == 200, page
    assert CONTROL.search(page) is None, CONTROL.search(page)
    assert SHOWN in page


@pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver")
def test_the_pages_work_under_the_policy_in_chromium(site: dict[str, Any]) -> None:
    """Every kind of page with a script, a board or a form (the console's and the play page
    signed in), and no violation of the policy in the log."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = start_chromium(console_log=True)
    try:
        driver.get(f"{site['url']}/matches/{site['played']}?step=3")
        board = WebDriverWait(driver, 60).until(lambda d: d.find_element(By.CSS_SELECTOR, "#board svg"))
        assert board.size["width"] > 0
        before = driver.find_element(By.ID, "step").text
        driver.find_element(By.ID, "next").click()
        WebDriverWait(driver, 60).until(lambda d: d.find_element(By.ID, "step").text != before)
        driver.get(site["url"] + "/console")  # signed in through the form, as an author would
        driver.find_element(By.CSS_SELECTOR, "#sign-in input[name=token]").send_keys(site["ann"])
        driver.find_element(By.CSS_SELECTOR, "#sign-in button").click()
        WebDriverWait(driver, 60).until(lambda d: "ann's bots" in d.page_source)
        paths = ("/", f"/matches/{site['running']}", "/standings/kingdoms", "/console/bots/annbot", "/play")
        for path in (*paths, f"/console/bots/annbot/matches/{site['played']}"):
            driver.get(site["url"] + path)
            WebDriverWait(driver, 60).until(
                lambda d: d.execute_script("return document.readyState") == "complete"
            )
            assert "error" not in driver.title.lower(), (path, driver.title)
        refused = [
            entry["message"]
            for entry in driver.get_log("browser")
            if "Content Security Policy" in entry["message"]
        ]
        assert refused == [], refused
    finally:
        driver.quit()


def test_the_texts_a_pages_script_shows_come_escaped() -> None:
    """The build log's live view and a replay's own output are drawn by scripts from JSON:
    their texts arrive with the control characters already made visible."""
    from starlette.requests import Request
    from starlette.responses import Response

    from kingmaker.server.web.console.data import watch_event
    from kingmaker.server.web.console.sessions import COOKIE, Session, SessionStore
    from kingmaker.server.web.own_output import own_output
    from kingmaker.v1 import admin_pb2

    played = admin_pb2.ValidationMatch(game="kingdoms", players=2, detail=HOSTILE, stderr_tail=HOSTILE)
    event = watch_event(
        admin_pb2.VersionInfo(
            status="rejected", status_reason=HOSTILE, build_output=HOSTILE, validation=[played]
        )
    )
    texts = [event["status_reason"], event["build_output"], event["validation"][0]["stderr_tail"]]
    assert all(CONTROL.search(text) is None and SHOWN in text for text in texts), texts

    class Server:
        def call(self, method: str, request: object, token: str) -> admin_pb2.MatchRecord:
            step = admin_pb2.StepOutput(decision=0, text=HOSTILE, bytes=len(HOSTILE.encode()))
            return admin_pb2.MatchRecord(
                revealed=True, seat_logs=[admin_pb2.SeatLog(seat=0, bot="b", steps=[step])]
            )

    sessions, started = SessionStore(), Response()
    sessions.start(
        started,
        Request({"type": "http", "scheme": "http", "path": "/", "headers": []}),
        Session(token="t", author="ann"),
    )
    cookie = started.headers["set-cookie"].split(";")[0].encode()
    assert cookie.startswith(COOKIE.encode())
    viewer = Request({"type": "http", "path": "/", "headers": [(b"cookie", cookie)]})
    shown = own_output(Server(), sessions, viewer, 1, 1)  # type: ignore[arg-type]
    assert shown is not None and len(shown["seats"]) == 1
    assert CONTROL.search(shown["seats"][0]["text"]) is None and SHOWN in shown["seats"][0]["text"]
