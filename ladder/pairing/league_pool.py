"""A league's maintained matchmaking rows: who has played how much, at what rating, with whom.

``leaguebot`` keeps, per entrant, the matches planned for it, a copy of its rating in the league's
game, and whether it is away or has left; ``leaguepair`` keeps, per pair of entrants (a row each
way), the matches planned with both, the group index of the last, and the rated matches they
played together. They are updated in the transactions that change them: ``note_planned`` when
matches are planned, ``note_rated`` in the one that records a match's result. So a continuous
ladder's matchmaker (``DatabasePool``) reads a few rows by index per group, and its cost does not
grow with the number of bots or of matches played.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, case, false, func, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from kingmaker.ladder.pairing.schedules import PlannedMatch
from kingmaker.ladder.pairing.schedules.pool import Contender
from kingmaker.ladder.ratings.ratings import settings_for
from kingmaker.ladder.records import RatingChange
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, League, LeagueBot, LeaguePair, Rating
from kingmaker.ladder.storage.tables import core_table, run_core

SEATABLE = (col(Bot.enabled).is_(True), col(Bot.suspended_reason).is_(None), col(Bot.retired_at).is_(None))
"""What a bot must be for any schedule to seat it (joined with its ``bot`` row)."""


class DatabasePool:
    """The ``schedules.Pool`` of one league, read from its maintained rows in the caller's session."""

    def __init__(self, session: Session, league_id: int) -> None:
        self.session = session
        self.league_id = league_id

    def fewest_planned(self, limit: int) -> list[Contender]:
        query = self._present().order_by(col(LeagueBot.planned), col(LeagueBot.bot_id)).limit(limit)
        return self._contenders(query)

    def nearest(self, bot: Contender, limit: int) -> list[Contender]:
        # Two walks out from the seed's mu along the (league, mu) index, merged: at most 2 * limit rows.
        present = self._present().where(LeagueBot.bot_id != bot.bot_id)
        above = present.where(col(LeagueBot.mu) >= bot.mu).order_by(col(LeagueBot.mu), col(LeagueBot.bot_id))
        below = present.where(col(LeagueBot.mu) < bot.mu).order_by(
            col(LeagueBot.mu).desc(), col(LeagueBot.bot_id)
        )
        found = self._contenders(above.limit(limit)) + self._contenders(below.limit(limit))
        return sorted(found, key=lambda c: (abs(c.mu - bot.mu), c.bot_id))[:limit]

    def last_met(self, bot: int, others: Sequence[int]) -> dict[int, int]:
        rows = self.session.exec(
            select(LeaguePair.other_id, LeaguePair.last_group).where(
                LeaguePair.league_id == self.league_id,
                LeaguePair.bot_id == bot,
                col(LeaguePair.other_id).in_(others),
            )
        ).all()
        return dict(rows)

    def _present(self) -> Any:
        """The league's entrants that may be seated now, as (bot, planned, mu, sigma) rows."""
        return (
            select(LeagueBot.bot_id, LeagueBot.planned, LeagueBot.mu, LeagueBot.sigma)
            .join(Bot, col(Bot.id) == col(LeagueBot.bot_id))
            .where(
                LeagueBot.league_id == self.league_id,
                col(LeagueBot.away) == false(),  # (a left bot is away too): the indexes' second column
                *SEATABLE,
            )
        )

    def _contenders(self, query: Any) -> list[Contender]:
        return [Contender(*row) for row in self.session.exec(query).all()]


def note_planned(session: Session, league_id: int, plan: Sequence[PlannedMatch]) -> None:
    """Count newly planned matches in the league's rows (in the transaction that writes them)."""
    if not plan:
        return
    counts = Counter(bot for planned in plan for bot in planned.bots)
    entrants = core_table(LeagueBot)
    session.execute(  # one statement, run once per bot (executemany)
        update(entrants)
        .where(entrants.c.league_id == league_id, entrants.c.bot_id == bindparam("bot"))
        .values(planned=entrants.c.planned + bindparam("matches")),
        [{"bot": bot, "matches": matches} for bot, matches in sorted(counts.items())],
    )
    meetings: Counter[tuple[int, int]] = Counter()
    last: dict[tuple[int, int], int] = {}
    for planned in plan:
        for key in itertools.permutations(planned.bots, 2):
            meetings[key] += 1
            last[key] = max(last.get(key, planned.group), planned.group)
    rows = [
        {"league_id": league_id, "bot_id": a, "other_id": b}
        | {"planned": n, "last_group": last[a, b], "played": 0}
        for (a, b), n in sorted(meetings.items())
    ]
    _upsert_pairs(session, rows)


def note_rated(session: Session, league_id: int | None, changes: Sequence[RatingChange]) -> None:
    """A rated match changed these ratings: copy them to the bots' open ladder leagues of that game,
    and count the meeting in its league's pair rows (in the transaction that records the result)."""
    if not changes:
        return
    note_ratings(
        session, changes[0].game, [(change.bot_id, change.mu_after, change.sigma_after) for change in changes]
    )
    if league_id is not None:
        seated = [change.bot_id for change in changes]
        session.connection().execute(_COUNT_PLAYED, {"league": league_id, "seated": seated})


def note_ratings(session: Session, game: str, ratings: Sequence[tuple[int, float, float]]) -> None:
    """These bots' ratings in ``game`` are now (bot id, mu, sigma): copy them to their open ladder
    leagues of that game (after a rated match, or when a new version's rating starts again)."""
    # Whatever the session holds is written first, as its own execute would (the rating rows a
    # new version resets come before these: the order every result locks rows in).
    session.flush()
    session.connection().execute(  # by bot id, the order every result locks rows in
        _COPY_RATINGS,
        [{"game": game, "bot": bot, "new_mu": mu, "new_sigma": sigma} for bot, mu, sigma in sorted(ratings)],
    )


def level_with_the_field(session: Session, bot_id: int) -> None:
    """The bot may be seated again (enabled, reinstated, a version of it passed): in each open
    ladder league it has not left, raise its count of planned matches to the fewest among the
    bots present there, as for a bot that joins. Left behind, it would seed every match until it
    caught up. One UPDATE of its own rows, the level computed in the database, so no league row is
    locked. Call it after changing the bot's ratings and before changing the bot's row: a result
    locks them in that order (ratings, these rows, the bot), and the same order cannot deadlock."""
    others = aliased(LeagueBot)
    fewest = (
        select(func.min(others.planned))
        .join(Bot, col(Bot.id) == others.bot_id)
        .where(
            others.league_id == LeagueBot.league_id,
            others.bot_id != bot_id,
            others.away == false(),
            *SEATABLE,
        )
        .scalar_subquery()
    )
    open_ladders = select(League.id).where(League.format == "ladder", col(League.finished).is_(False))
    session.execute(
        update(LeagueBot)
        .where(
            col(LeagueBot.bot_id) == bot_id,
            col(LeagueBot.left_at).is_(None),
            col(LeagueBot.league_id).in_(open_ladders.scalar_subquery()),
        )
        .values(planned=case((fewest > LeagueBot.planned, fewest), else_=LeagueBot.planned))
    )


@dataclass(frozen=True)
class PairCount:
    bot: str
    other: str
    planned: int
    """Matches planned with both (waiting, running, finished or cancelled)."""
    played: int
    """Rated matches they played together."""


def league_pairs(db: Database, league_id: int) -> list[PairCount]:
    """How often each pair of the league's bots met, by bot names (one entry per pair)."""
    with db.read() as session:
        rows = session.exec(
            select(LeaguePair.bot_id, LeaguePair.other_id, LeaguePair.planned, LeaguePair.played)
            .where(LeaguePair.league_id == league_id, col(LeaguePair.bot_id) < col(LeaguePair.other_id))
            .order_by(col(LeaguePair.bot_id), col(LeaguePair.other_id))
        ).all()
        ids = {bot for row in rows for bot in row[:2]}
        names = dict(session.exec(select(Bot.id, Bot.name).where(col(Bot.id).in_(ids))).all())
    return [PairCount(names[a], names[b], planned, played) for a, b, planned, played in rows]


# Built once, executed on the session's connection: a result runs both, and building a statement
# costs several times what executing it does (``docs/scaling.md``).
_pairs, _entrants = core_table(LeaguePair), core_table(LeagueBot)
_COUNT_PLAYED = (
    update(_pairs)
    .where(
        _pairs.c.league_id == bindparam("league"),
        _pairs.c.bot_id.in_(bindparam("seated", expanding=True)),
        _pairs.c.other_id.in_(bindparam("seated", expanding=True)),
    )
    .values(played=_pairs.c.played + 1)
)
_COPY_RATINGS = (
    update(_entrants)
    .where(_entrants.c.bot_id == bindparam("bot"))
    .where(
        _entrants.c.league_id.in_(
            select(League.id)
            .where(
                League.game == bindparam("game"), League.format == "ladder", col(League.finished).is_(False)
            )
            .scalar_subquery()
        )
    )
    .values(mu=bindparam("new_mu"), sigma=bindparam("new_sigma"))
)


_pairs = core_table(LeaguePair)


def _pairs_upsert(dialect: str) -> Any:
    """Add a planned meeting to its pair row, creating it if it does not exist yet: one statement,
    built once and run once per row (executemany), rather than one built anew with every row's
    values in it (compiling that cost more than running it)."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(_pairs)
    return statement.on_conflict_do_update(
        index_elements=["league_id", "bot_id", "other_id"],
        set_={
            "planned": _pairs.c.planned + statement.excluded.planned,
            "last_group": statement.excluded.last_group,
        },
    )


_UPSERT_PAIRS = {dialect: _pairs_upsert(dialect) for dialect in ("postgresql", "sqlite")}


def _upsert_pairs(session: Session, rows: list[dict[str, int]]) -> None:
    """Add planned meetings to pair rows, creating those that do not exist yet."""
    statement = _UPSERT_PAIRS.get(session.get_bind().dialect.name)
    if statement is not None:
        run_core(session, statement, rows)
        return
    for row in rows:  # any other database: read, then write
        key = (row["league_id"], row["bot_id"], row["other_id"])
        found = session.get(LeaguePair, key)
        if found is None:
            session.add(LeaguePair(**row))
        else:
            found.planned += row["planned"]
            found.last_group = row["last_group"]
            session.add(found)
    session.flush()


def new_entrant(session: Session, league: League, bot_id: int, position: int, planned: int = 0) -> LeagueBot:
    """A league's row for a bot entering it, with its rating in the league's game copied."""
    rating = session.exec(select(Rating).where(Rating.bot_id == bot_id, Rating.game == league.game)).first()
    settings = settings_for(league.game)
    mu, sigma = (rating.mu, rating.sigma) if rating is not None else (settings.mu, settings.sigma)
    assert league.id is not None
    return LeagueBot(
        league_id=league.id, bot_id=bot_id, position=position, planned=planned, mu=mu, sigma=sigma
    )
