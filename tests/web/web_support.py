"""Helpers for the website tests: a ladder database with bots and matches really played by the
engines (random legal actions) and recorded through the ladder's own functions, and a headless
Chromium (Debian's package, driven by Selenium through /usr/bin/chromedriver)."""

from __future__ import annotations

import random
import shutil
import tempfile
from collections.abc import Sequence

from kingmaker.games.api import Action, Seat
from kingmaker.games.registry import get_game
from kingmaker.ladder.db import Database
from kingmaker.ladder.matches import create_match, finish_match, mark_running
from kingmaker.ladder.records import MatchOutcome, MatchTicket, SeatOutcome, actions_to_data

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def play_and_record(
    db: Database, ticket: MatchTicket, seed: int = 0, stderr: str = ""
) -> list[dict[Seat, Action]]:
    """Play the ticket's match with random legal actions, and record it as the server would
    (``stderr``: what seat 0's bot wrote to its stderr, kept by the ladder for fault reports)."""
    game = get_game(ticket.game)
    state = game.new(len(ticket.bot_ids), ticket.seed, ticket.options)
    chooser = random.Random(seed)
    log: list[dict[Seat, Action]] = []
    while not state.is_over():
        joint = {seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()}
        state.apply(joint)
        log.append(joint)
    result = state.result()
    mark_running(db, ticket.match_id)
    seats = tuple(
        SeatOutcome(
            seat=seat,
            bot_id=bot_id,
            score=result.scores[seat],
            rank=result.ranks[seat],
            stderr_tail=stderr if seat == 0 else "",
        )
        for seat, bot_id in enumerate(ticket.bot_ids)
    )
    times = [{str(seat): [round(1.5 + seat + number % 7, 1), "bot"] for seat in joint}
             for number, joint in enumerate(log)]  # fmt: skip
    finish_match(
        db,
        MatchOutcome(
            match_id=ticket.match_id,
            seats=seats,
            rules_edition=game.spec.edition,
            actions=actions_to_data(log),
            timings={"duration_s": 0.5, "decisions": times},
        ),
    )
    return log


def one_match(db: Database, game: str, bots: Sequence[str], seed: int, stderr: str = "") -> int:
    """A one-off match of ``game`` between ``bots``, played and recorded; its id."""
    ticket = create_match(db, game, bots, seed=seed)
    play_and_record(db, ticket, seed, stderr)
    return ticket.match_id


def chromium_available() -> bool:
    return shutil.which(CHROMIUM) is not None and shutil.which(CHROMEDRIVER) is not None


def start_chromium(width: int = 1280, height: int = 900):  # type: ignore[no-untyped-def]
    """A headless Chromium with a fresh profile (the caller quits it)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tempfile.mkdtemp(prefix='km-chromium-')}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
