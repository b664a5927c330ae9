"""Revision 0005 packs the match logs of an existing database in place (SQLite and PostgreSQL):
a database at 0004, holding logs as the server wrote them before (JSON, full digests, and older
logs still: digests of JSON values, no per-decision times), upgrades, and every match then reads
back as it was and replays to its recorded end as `replay --verify` checks it; a downgrade gives
the JSON back."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from ladder_support import TEST_GAME
from log_support import PlayedLog, played_log
from postgres_server import Databases

from kingmaker.games import serial
from kingmaker.games.api import Result
from kingmaker.games.registry import get_game
from kingmaker.ladder.matches.history import match_summary
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.ladder.storage.migrate import alembic_config, current_revision, head_revision, upgrade
from kingmaker.server.cli.replay import differences, run_again
from kingmaker.server.refereeing.referee import final_ranks
from kingmaker.server.services.convert import stored_record

OLD = "0004"


@pytest.fixture(params=["sqlite", "postgresql"])
def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database migrated to revision 0004 only (before logs were packed), as such a server left it."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
        upgrade(sa.create_engine(url), OLD)
        yield url
        return
    databases: Databases = request.getfixturevalue("postgres")
    url = databases.empty_database()
    engine = sa.create_engine(url)
    upgrade(engine, OLD)
    engine.dispose()
    yield url
    databases.drop(url)


def old_era(log: PlayedLog) -> PlayedLog:
    """The same match as the first servers logged it: digests of the observations as JSON
    values, and no time per decision."""
    game = get_game(log.game)
    state = game.new(log.players, log.seed, {})
    digests: list[list[str]] = [[] for _ in range(log.players)]
    for joint in log.actions:
        for seat in joint:
            if len(digests[int(seat)]) < len(log.digests[int(seat)]):
                digests[int(seat)].append(serial.digest(state.observation(int(seat))))
        state.apply({int(seat): serial.action_from_data(game.spec, data) for seat, data in joint.items()})
    timings = {key: value for key, value in log.timings.items() if key != "decisions"}
    return replace(log, digests=digests, timings=timings)


def store_old_match(db: Database, names: list[str], log: PlayedLog) -> int:
    """A finished match with its log as revision 0004 stored it, written here by hand into that
    revision's tables (the models are the new ones: they name columns added since)."""
    faulty = [seat == log.forfeited for seat in range(log.players)]
    ranks = log.ranks if log.game == TEST_GAME else final_ranks(Result(log.scores, log.ranks), faulty)
    with db.engine.begin() as connection:
        tables = sa.MetaData()
        tables.reflect(connection, only=["bot", "match", "matchseat", "matchlog"])
        bot, match, seat, matchlog = (
            tables.tables[name] for name in ("bot", "match", "matchseat", "matchlog")
        )
        ids = dict(connection.execute(sa.select(bot.c.name, bot.c.id).where(bot.c.name.in_(names))).all())
        match_id = connection.execute(
            sa.insert(match).values(
                ordinal=0, game=log.game, players=log.players, seed=log.seed, options={},
                status="finished", created_at=datetime.now(UTC), rated=True,
            )
        ).inserted_primary_key[0]  # fmt: skip
        for number, name in enumerate(names):
            connection.execute(sa.insert(seat).values(match_id=match_id, seat=number, bot_id=ids[name]))
        for number in range(log.players):
            reason = EndReason.CRASHED if faulty[number] else EndReason.FINISHED
            connection.execute(
                sa.update(seat)
                .where(seat.c.match_id == match_id, seat.c.seat == number)
                .values(score=log.scores[number], game_rank=log.ranks[number], rank=ranks[number],
                        strikes=0, end_reason=reason.value)
            )  # fmt: skip
        connection.execute(
            sa.insert(matchlog).values(
                match_id=match_id, game=log.game, rules_edition=log.edition, seed=log.seed,
                options={}, actions=log.actions, digests=log.digests, timings=log.timings,
            )
        )  # fmt: skip
    return match_id


def old_database(url: str) -> dict[int, PlayedLog]:
    """A database at 0004 with a match of every game, one with a forfeit, an older log, and a
    match of a game without a proto; returns each match's log as it was stored."""
    db = open_database(url, upgrade=False)
    names = [f"bot{i}" for i in range(5)]
    with db.engine.begin() as connection:  # bots as revision 0004 stored them
        tables = sa.MetaData()
        tables.reflect(connection, only=["bot", "botgame"])
        bot, botgame = tables.tables["bot"], tables.tables["botgame"]
        for name in names:
            now = datetime.now(UTC)
            bot_id = connection.execute(
                sa.insert(bot).values(name=name, token_hash=f"hash-{name}", enabled=True, created_at=now,
                                      token_rotated_at=now)
            ).inserted_primary_key[0]  # fmt: skip
            for game in ("kingdoms", "kingsburg", "kings_road", "kingsville", TEST_GAME):
                connection.execute(sa.insert(botgame).values(bot_id=bot_id, game=game))
    logs = [
        played_log("kingdoms", 2, seed=1),
        played_log("kingsburg", 3, seed=2, forfeit_at=20),
        played_log("kings_road", 4, seed=3),
        played_log("kingsville", 4, seed=4, forfeit_at=9),
        old_era(played_log("kingdoms", 3, seed=5)),
    ]
    stored = {store_old_match(db, names[: log.players], log): log for log in logs}
    odd = PlayedLog(
        game=TEST_GAME, edition="test-1", seed=6, players=2,
        actions=[{"0": {"type": "Roll", "dice": 2}}, {"1": {"type": "Roll", "dice": 5}}],
        digests=[["aa", "bb"], ["cc"]], timings={"duration_s": 1.5, "note": [1, "two"]},
        scores=(9, 8), ranks=(1, 2), forfeited=None,
    )  # fmt: skip
    stored[store_old_match(db, names[:2], odd)] = odd
    db.close()
    return stored


def shortened(digests: list[list[str]]) -> list[list[str]]:
    """Digests as the packed logs keep them: the prefix and 4 bytes of hex."""
    return [[d[: len(d) - len(d.lstrip("p")) + 8] for d in seat] for seat in digests]


def test_an_old_database_is_packed_in_place_and_every_match_still_verifies(old_url: str) -> None:
    logs = old_database(old_url)
    db = open_database(old_url)  # upgrades, as `kingmaker serve` does
    try:
        assert current_revision(db.engine) == head_revision()
        for match_id, log in logs.items():
            stored = match_log(db, match_id)
            assert (stored.actions, stored.timings) == (log.actions, log.timings), match_id
            if log.game == TEST_GAME:
                assert stored.digests == log.digests  # not hex: kept whole
                continue
            assert stored.digests == shortened(log.digests)
            record = stored_record(match_summary(db, match_id), stored)
            state, shown = run_again(record)
            assert differences(record, state, shown) == [], match_id
        query = (
            "SELECT length(actions) + length(digests) + length(timings) FROM matchlog WHERE game = 'kingdoms'"
        )
        with db.engine.connect() as connection:
            sizes = connection.execute(sa.text(query)).scalars().all()
        assert all(size < 3000 for size in sizes), sizes
    finally:
        db.close()


def test_a_replay_still_catches_a_seat_shown_something_else(old_url: str) -> None:
    logs = old_database(old_url)
    match_id = next(i for i, log in logs.items() if log.game == "kingdoms")
    tampered = [list(seat) for seat in logs[match_id].digests]
    tampered[1][7] = tampered[1][7][:5] + ("0" if tampered[1][7][5] != "0" else "1") + tampered[1][7][6:]
    engine = sa.create_engine(old_url)
    with engine.begin() as connection:
        matchlog = sa.Table("matchlog", sa.MetaData(), autoload_with=connection)
        connection.execute(sa.update(matchlog).where(matchlog.c.match_id == match_id), {"digests": tampered})
    engine.dispose()
    db = open_database(old_url)
    try:
        record = stored_record(match_summary(db, match_id), match_log(db, match_id))
        state, shown = run_again(record)
        assert differences(record, state, shown) == ["seat 1 was shown something else at its decision 8"]
    finally:
        db.close()


def test_a_downgrade_gives_the_logs_back_as_json(old_url: str) -> None:
    logs = old_database(old_url)
    engine = sa.create_engine(old_url)
    try:
        upgrade(engine)
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), OLD)
        with engine.connect() as connection:
            matchlog = sa.Table("matchlog", sa.MetaData(), autoload_with=connection)
            rows = connection.execute(sa.select(matchlog)).all()
        for row in rows:
            log = logs[row.match_id]
            assert (row.actions, row.timings) == (log.actions, log.timings)
            expected: list[list[str]] = log.digests if log.game == TEST_GAME else shortened(log.digests)
            assert row.digests == expected
    finally:
        engine.dispose()
