"""Helpers for the website tests: a ladder database with bots and matches really played by the
engines (random legal actions) and recorded through the ladder's own functions, and a headless
Chromium (Debian's package, driven by Selenium through /usr/bin/chromedriver)."""

from __future__ import annotations

import http.client
import json
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from kingmaker.games import serial
from kingmaker.games.api import Action, Seat
from kingmaker.games.registry import get_game
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.records import MatchOutcome, MatchTicket, SeatOutcome, actions_to_data
from kingmaker.ladder.storage.db import Database

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

PATIENT_BOT = [
    sys.executable,
    "-c",
    "import time\n"
    "from kingmaker.sample_bots.random_bot import RandomBot\n"
    "from kingmaker.sdk import run\n"
    "class Patient(RandomBot):\n"
    "    def act(self, request):\n"
    "        time.sleep(0.06)\n"
    "        return super().act(request)\n"
    "run(Patient())\n",
]
"""A random bot that takes 60 ms a decision: a Kingdoms match stays in play for seconds, long
enough to watch its moves arrive."""


def play_and_record(
    db: Database,
    ticket: MatchTicket,
    seed: int = 0,
    stderr: str = "",
    already_running: bool = False,
    think: bool = False,
) -> list[dict[Seat, Action]]:
    """Play the ticket's match with random legal actions, and record it as the server would
    (``stderr``: what seat 0's bot wrote to its stderr, kept by the ladder for fault reports;
    ``think``: with each seat's think time per request, as the referee keeps it)."""
    game = get_game(ticket.game)
    state = game.new(len(ticket.bot_ids), ticket.seed, ticket.options)
    chooser = random.Random(seed)
    log: list[dict[Seat, Action]] = []
    while not state.is_over():
        joint = {seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()}
        state.apply(joint)
        log.append(joint)
    result = state.result()
    if not already_running:
        mark_running(db, ticket.match_id)
    seats = tuple(
        SeatOutcome(
            seat=seat,
            bot_id=bot_id,
            score=result.scores[seat],
            rank=result.ranks[seat],
            stderr_tail=stderr if seat == 0 else "",
            stderr=stderr if seat == 0 else "",  # kept for its owner, as the server does
            stderr_bytes=len(stderr.encode()) if seat == 0 else 0,
        )
        for seat, bot_id in enumerate(ticket.bot_ids)
    )
    times = [{str(seat): [round(1.5 + seat + number % 7, 1), "bot"] for seat in joint}
             for number, joint in enumerate(log)]  # fmt: skip
    timings: dict[str, Any] = {"duration_s": 0.5, "decisions": times}
    if think:
        timings["think_ms"] = [[2.0 for joint in log if seat in joint] for seat in range(len(ticket.bot_ids))]
    finish_match(
        db,
        MatchOutcome(
            match_id=ticket.match_id,
            seats=seats,
            rules_edition=game.spec.edition,
            actions=actions_to_data(log),
            timings=timings,
        ),
    )
    return log


def one_match(db: Database, game: str, bots: Sequence[str], seed: int, stderr: str = "") -> int:
    """A one-off match of ``game`` between ``bots``, played and recorded; its id."""
    ticket = create_match(db, game, bots, seed=seed)
    play_and_record(db, ticket, seed, stderr)
    return ticket.match_id


def events(url: str, timeout: float = 120) -> Iterator[tuple[str, object, float]]:
    """The server-sent events of ``url`` as (kind, data, monotonic time received), until the
    stream ends; comments are skipped."""
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=timeout)
    try:
        connection.request("GET", address.path + (f"?{address.query}" if address.query else ""))
        response = connection.getresponse()
        assert response.status == 200, response.status
        assert response.getheader("Content-Type", "").startswith("text/event-stream")
        kind, data = "message", ""
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data += line.removeprefix("data: ")
            elif not line and data:
                yield kind, json.loads(data), time.monotonic()
                kind, data = "message", ""
    finally:
        connection.close()


def chromium_available() -> bool:
    return shutil.which(CHROMIUM) is not None and shutil.which(CHROMEDRIVER) is not None


def start_chromium(
    width: int = 1280, height: int = 900, network_log: bool = False, console_log: bool = False
):  # type: ignore[no-untyped-def]
    """A headless Chromium with a fresh profile (the caller quits it); ``network_log``: its
    DevTools Network events kept for ``get_log("performance")`` (what the page received);
    ``console_log``: its console's messages for ``get_log("browser")`` (policy violations among them)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="km-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    logs = {"performance": "ALL"} if network_log else {}
    if console_log:
        logs["browser"] = "ALL"
    if logs:
        options.set_capability("goog:loggingPrefs", logs)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    except BaseException:
        shutil.rmtree(profile, ignore_errors=True)
        raise
    quit_only = driver.quit

    def quit_and_remove_profile() -> None:  # (each run left some 16 profiles, 3-7 MB each, in /tmp)
        try:
            quit_only()
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    driver.quit = quit_and_remove_profile
    return driver


BROWSER_WAIT_S = 300.0
"""How long a Chromium test waits for a page to show what it expects (a loaded machine is slow)."""


def wait_for(driver: Any, condition: Any, timeout: float = BROWSER_WAIT_S) -> Any:
    """Until ``condition(driver)`` holds; an element it found that a page's script or a reload
    replaced meanwhile is looked for again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    waiting = WebDriverWait(
        driver, timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]
    )
    return waiting.until(condition)


def sign_in(driver: Any, site: str, token: str) -> None:
    """Sign in to the console at ``site`` with an author's ``token``."""
    from selenium.webdriver.common.by import By

    driver.get(f"{site}/console")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in button").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "signed-in-as"))


def spectator_views(db: Database, match_id: int, players: int = 2) -> list[Any]:
    """The spectator view after each decision of the stored match, by the engine."""
    log = match_log(db, match_id)
    game = get_game(log.game)
    assert game.spectate is not None
    state = game.new(players, log.seed, log.options)
    views = [serial.to_data(game.spectate(state))]
    for joint in log.actions:
        state.apply({int(seat): serial.action_from_data(game.spec, data) for seat, data in joint.items()})
        views.append(serial.to_data(game.spectate(state)))
    return views
