"""Which trial matches (a version's validation and A/B duel matches, ``TrialMatch``) are kept.

A version's trial matches are kept while retention keeps the version (``retention.prune``: its
active version, the versions still needed, the newest few others), and go when it does: a pruned
version's matches cannot be run again, nor are they of use to its owner once its files are gone.
A kept version keeps every validation match (a few per game) and its newest ``KEEP_DUEL_MATCHES``
duel matches per game: a four-game duel may play up to 3,200, and what it showed is kept in its
verdict. Dropped here, in the prune's transaction; the log, seats and all go with the row.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy import delete
from sqlmodel import Session, col, select

from kingmaker.ladder.storage.models import TrialMatch

KEEP_DUEL_MATCHES = 100
"""The newest duel matches a kept version keeps per game."""
DELETE_CHUNK = 500
"""Ids per DELETE statement (a bound on a statement's parameters)."""

VersionKey = tuple[int, int]
"""(bot id, version number)."""


def trials_to_drop(session: Session, bot_ids: Iterable[int], gone: set[VersionKey]) -> list[int]:
    """The ids of the trial matches of these bots that retention does not keep: every one of a
    version in ``gone`` (pruned, or about to be), and a kept version's duel matches past its newest
    ``KEEP_DUEL_MATCHES`` per game."""
    wanted = list(bot_ids)
    if not wanted:
        return []
    mine = col(TrialMatch.bot_id).in_(wanted)
    rows = session.exec(
        select(TrialMatch.id, TrialMatch.bot_id, TrialMatch.version, TrialMatch.game)
        .where(mine)
        .order_by(col(TrialMatch.id).desc())
    ).all()
    duels = set(session.exec(select(TrialMatch.id).where(mine, TrialMatch.purpose == "duel")).all())
    dropped: list[int] = []
    duels_seen: dict[tuple[int, int, str], int] = defaultdict(int)
    for row_id, bot_id, version, game in rows:  # newest first
        assert row_id is not None
        if (bot_id, version) in gone:
            dropped.append(row_id)
        elif row_id in duels:
            duels_seen[(bot_id, version, game)] += 1
            if duels_seen[(bot_id, version, game)] > KEEP_DUEL_MATCHES:
                dropped.append(row_id)
    return dropped


def drop_trials(session: Session, ids: list[int]) -> None:
    """Delete these trial matches (inside the caller's transaction)."""
    for start in range(0, len(ids), DELETE_CHUNK):
        chunk = ids[start : start + DELETE_CHUNK]
        session.execute(delete(TrialMatch).where(col(TrialMatch.id).in_(chunk)))
