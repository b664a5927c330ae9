"""A version's trial matches: what its validation and its A/B duel played, kept for its owner.

They are not ladder matches: no ``match`` row, no seats, no rating, no fault counted; a row of
their own (``TrialMatch``) holding the seats' results as JSON and the log packed exactly as a
ladder match's (``compact_logs``), so the one replay reads both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import col, select

from kingmaker.games.api import OptionValue
from kingmaker.ladder.bots.bots import find_bot
from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.ladder.matches.compact_logs import unpack_actions, unpack_digests
from kingmaker.ladder.records import PackedLog
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import TrialMatch

PURPOSES = ("validation", "duel")
LIST_LIMIT = 100
MAX_LIST_LIMIT = 1000


@dataclass(frozen=True)
class TrialSeat:
    bot: str
    """The bot's name; a random bot of validation is "random-N"."""
    version: int | None
    score: int
    rank: int
    end_reason: str
    """An ``EndReason`` value."""
    detail: str = ""


@dataclass(frozen=True)
class TrialRecord:
    id: int
    bot: str
    version: int
    purpose: str
    game: str
    rules_edition: str
    seed: int
    options: dict[str, OptionValue]
    seats: tuple[TrialSeat, ...]
    played_at: datetime
    actions: list[dict[str, Any]] | None = None
    """The joint actions as ``records.actions_to_data`` makes them; only from ``trial_match``."""
    digests: list[list[str]] | None = None


def record_trial(
    db: Database,
    bot: str,
    version: int,
    purpose: str,
    game: str,
    rules_edition: str,
    seed: int,
    options: Mapping[str, OptionValue],
    seats: Sequence[TrialSeat],
    log: PackedLog,
) -> int:
    """Keep one trial match, its log packed as a ladder match's (``compact_logs.pack_log``); its id."""
    if purpose not in PURPOSES:
        raise InvalidRequestError(f"a trial match is for {' or '.join(PURPOSES)}, not {purpose!r}")
    with db.transaction() as session:
        found = find_bot(session, bot)
        assert found.id is not None
        row = TrialMatch(
            bot_id=found.id,
            version=version,
            purpose=purpose,
            game=game,
            rules_edition=rules_edition,
            seed=seed,
            options=dict(options),
            seats=[vars(seat) for seat in seats],
            actions=log.actions,
            digests=log.digests,
            timings=log.timings,
        )
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def list_trials(
    db: Database, bot: str, version: int | None = None, limit: int = LIST_LIMIT, before: int | None = None
) -> list[TrialRecord]:
    """A bot's trial matches (one version's when given; only those older than the trial match
    ``before`` when given: the next page), newest first, without their logs."""
    if not 1 <= limit <= MAX_LIST_LIMIT + 1:  # (a page and one more, to know whether there is another)
        raise InvalidRequestError(f"limit must be 1 to {MAX_LIST_LIMIT}, not {limit}")
    with db.read() as session:
        found = find_bot(session, bot)
        query = select(TrialMatch).where(TrialMatch.bot_id == found.id)
        if version is not None:
            query = query.where(TrialMatch.version == version)
        if before is not None:
            query = query.where(col(TrialMatch.id) < before)
        rows = session.exec(query.order_by(col(TrialMatch.id).desc()).limit(limit)).all()
        return [_record(row, found.name) for row in rows]


def trial_match(db: Database, bot: str, trial_id: int) -> TrialRecord:
    """One of the bot's trial matches with its actions and digests (``NotFoundError`` when the
    id is not one of this bot's)."""
    with db.read() as session:
        found = find_bot(session, bot)
        row = session.get(TrialMatch, trial_id)
        if row is None or row.bot_id != found.id:
            raise NotFoundError(f"{bot} has no trial match {trial_id} (see `kingmaker bot trials {bot}`)")
        return _record(row, found.name, with_log=True)


def _record(row: TrialMatch, bot: str, with_log: bool = False) -> TrialRecord:
    assert row.id is not None
    return TrialRecord(
        id=row.id,
        bot=bot,
        version=row.version,
        purpose=row.purpose,
        game=row.game,
        rules_edition=row.rules_edition,
        seed=row.seed,
        options=dict(row.options),
        seats=tuple(TrialSeat(**seat) for seat in row.seats),
        played_at=row.played_at,
        actions=unpack_actions(row.game, row.actions) if with_log else None,
        digests=unpack_digests(row.digests) if with_log else None,
    )
