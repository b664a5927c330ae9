"""What the tests of a person's seat share: a server without the jail whose random bots play every
game, and an author, ann, who sits down against them."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlmodel import select

from kingmaker.games.registry import game_names
from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.storage.models import Match, MatchSeat, MatchStatus
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.console.client import ConsoleClient
from kingmaker.server.web.seat_relay import SeatRelay, SeatState
from kingmaker.v1 import admin_pb2

from support import bot_command

WAIT = 300.0


@dataclass
class Table:
    server: BackgroundServer
    ann: str
    """ann's author token."""
    client: ConsoleClient


@pytest.fixture
def table(kingmaker_home: Path) -> Iterator[Table]:
    yield from seated(guests=0)


@pytest.fixture
def guest_table(kingmaker_home: Path) -> Iterator[Table]:
    """The same server, taking one guest at a time (``serve --guests 1``)."""
    yield from seated(guests=1)


@pytest.fixture
def rated_table(kingmaker_home: Path) -> Iterator[Table]:
    """The same server, rating matches with people apart (``serve --rate-people``), with a guest seat."""
    yield from seated(guests=1, rate_people=True)


def seated(guests: int, rate_people: bool = False) -> Iterator[Table]:
    config = ServerConfig(
        address="127.0.0.1:0",
        admin_token="admin",
        jail=False,
        resume_leagues=False,
        guests=guests,
        rate_people=rate_people,
    )
    server = BackgroundServer(config)
    client = ConsoleClient(server.address)
    try:
        db = server.server.db
        _, ann = authors.add_author(db, "ann")
        for name in ("rando", "randa", "randi", "rande"):
            bots.register_bot(db, name, game_names(), list(bot_command("random_bot.py")))
        yield Table(server, ann, client)
    finally:
        client.close()
        server.stop()


def setup(game: str, opponents: int, bank_ms: int = 60_000, seat: int = 0) -> admin_pb2.PlaySetup:
    names = ["rando", "randa", "randi", "rande"][:opponents]
    return admin_pb2.PlaySetup(
        game=game, opponents=names, seat=seat, bank_ms=bank_ms, increment_ms=1000, seed=7
    )


def play_randomly(relay: SeatRelay, rng: random.Random) -> SeatState:
    """Answer every request with a random legal action until the match ends."""
    deadline = time.monotonic() + WAIT
    version = 0
    while time.monotonic() < deadline:
        state = relay.wait(version, 5.0)
        version = state.version
        if relay.over:
            return state
        if state.request is not None:
            relay.answer(state.request.request_id, rng.randrange(len(state.request.actions)))
    raise AssertionError("the match did not end")


def stored(table: Table, match_id: str) -> Stored:
    """The match once its result is stored: its row and its seats' end reasons."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        with table.server.server.db.read() as session:
            match = session.get(Match, int(match_id))
            assert match is not None
            if match.status == MatchStatus.FINISHED:
                seats = session.exec(select(MatchSeat).where(MatchSeat.match_id == match.id)).all()
                reasons = [seat.end_reason for seat in sorted(seats, key=lambda seat: seat.seat)]
                return Stored(match.rated, match.status_reason or "", reasons)
            assert match.status == MatchStatus.RUNNING, (match.status, match.status_reason)
        time.sleep(0.2)
    raise AssertionError(f"match {match_id} was never stored")


@dataclass(frozen=True)
class Stored:
    rated: bool
    status_reason: str
    reasons: list[str | None]
