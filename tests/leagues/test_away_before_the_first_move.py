"""A ladder's remote bot that leaves after its match was claimed, before the match began, is away,
not faulted: the match waits for its seat, and when the bot has been gone for the away grace the
match is cancelled (the bot told nothing of it yet) like the ladder's other waiting matches.

Run 17 of the suite saw the fault this prevents: a bot stopped between two matches; the server
claimed its next match while the stream still looked open, the stream closed before the seat was
taken, and after ``connect_timeout`` the seat was faulted ``never_connected``. A bot that is
stopped while its match is under way is still faulted (``test_living_ladder``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.history import MatchSummary, list_matches
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server.scheduling.scheduler import LeagueRunner
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Roster
from kingmaker.server.seats.sessions import BotSession, Identity, SessionPool

GRACE_S = 0.5
CONNECT_TIMEOUT_S = 20.0
"""Longer than the grace, as the server's defaults are (15 s against 10 s), and wide enough that
on a loaded machine the once-a-second look at who is here comes well before it."""


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    database = open_database(database_url)
    yield database
    database.close()


def connect(pool: SessionPool, db: Database, name: str) -> BotSession:
    bot, _ = register_bot(db, name, ["kingdoms"])
    session = BotSession(Identity(bot=name, bot_id=bot.id), ("kingdoms",), capacity=1)
    pool.admit(session)
    return session


def test_a_remote_bot_gone_between_its_matchs_claim_and_its_seat_is_away_and_its_match_cancelled(
    db: Database,
) -> None:
    pool = SessionPool()
    steady = connect(pool, db, "steady")
    roamer = connect(pool, db, "roamer")
    # Connected, so its match is claimed; busy to the end of its capacity, so the match waits for
    # its seat: the window between claim and lease, held open.
    roamer.matches.add("a match on another server's table")
    leagues.create_league(db, "living", "kingdoms", ["steady", "roamer"], format="ladder", seed=3)

    async def scenario() -> tuple[MatchSummary, list[MatchSummary]]:
        roster = Roster(pool, "unused", connect_timeout=CONNECT_TIMEOUT_S, busy_timeout=60)
        runner = LeagueRunner(db, roster, TimeControl(), concurrency=1, away_grace=GRACE_S)
        await runner.start("living")
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60
            while not (claimed := [match for match in _matches(db) if match.status == "running"]):
                assert loop.time() < deadline, "the match was never claimed"
                await asyncio.sleep(0.05)
            roamer.close()  # its author stops it: it is not connected any more
            # That match, not only the ladder's waiting ones (cancelled by the away rule before).
            while (match := _match(db, claimed[0].match_id)).status == "running":
                assert loop.time() < deadline, f"the claimed match was not cancelled: {match}"
                await asyncio.sleep(0.05)
            return match, _matches(db)
        finally:
            await runner.stop()

    claimed, every = asyncio.run(scenario())
    assert (claimed.status, claimed.status_reason) == ("cancelled", "bot roamer was away (not connected)")
    # Nothing was played or faulted, and steady was never taken for it.
    assert not [match for match in every if match.status in ("running", "finished", "void")], every
    assert steady.matches == set() and steady.outbox.empty()
    assert roamer.matches == {"a match on another server's table"}


def _match(db: Database, match_id: int) -> MatchSummary:
    return next(match for match in _matches(db) if match.match_id == match_id)


def _matches(db: Database) -> list[MatchSummary]:
    return list_matches(db, league="living", limit=100)
