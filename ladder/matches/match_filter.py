"""Which stored matches a listing keeps: those a bot played in, against an opponent, with one of
its versions, or that it won, drew or lost. Each is a condition on the ``(bot, match)`` index of
``matchseat``, written into the listing's query, so a bot's page of matches reads that page only
(``history.list_matches``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, exists
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.ladder.storage.models import Bot, Match, MatchSeat, MatchStatus

RESULTS = ("win", "draw", "loss")
"""A bot's result in a finished match: first alone, first with another seat, any other place."""


@dataclass(frozen=True)
class MatchFilter:
    """The conditions; empty (or 0) means any. ``opponent``, ``version`` and ``result`` are about
    ``bot``'s seat and need it."""

    bot: str = ""
    opponent: str = ""
    version: int = 0
    result: str = ""

    def check(self) -> None:
        """``InvalidRequestError`` with one line for a condition that cannot be met."""
        if self.result and self.result not in RESULTS:
            raise InvalidRequestError(f"result must be one of {', '.join(RESULTS)}, not {self.result[:40]!r}")
        if self.version < 0:
            raise InvalidRequestError(f"a version is a number from 1, not {self.version}")
        needing = [name for name, given in self._about_the_bot() if given]
        if needing and not self.bot:
            raise InvalidRequestError(f"a filter by {needing[0]} needs the bot whose matches to list")
        if self.opponent and self.opponent == self.bot:
            raise InvalidRequestError(f"{self.bot!r} is never its own opponent (a bot takes one seat)")

    def _about_the_bot(self) -> list[tuple[str, bool]]:
        return [
            ("opponent", bool(self.opponent)),
            ("version", bool(self.version)),
            ("result", bool(self.result)),
        ]

    def applied(self, session: Session, query: Any) -> Any:
        """``query`` (over ``Match``) with the conditions; ``NotFoundError`` for an unknown bot."""
        self.check()
        if not self.bot:
            return query
        mine = aliased(MatchSeat)
        conditions: list[ColumnElement[bool]] = [
            col(mine.match_id) == col(Match.id),
            col(mine.bot_id) == _bot_id(session, self.bot),
        ]
        if self.version:
            conditions.append(col(mine.version) == self.version)
        if self.opponent:
            theirs = aliased(MatchSeat)
            conditions.append(
                exists().where(
                    col(theirs.match_id) == col(mine.match_id),
                    col(theirs.bot_id) == _bot_id(session, self.opponent),
                )
            )
        if self.result:
            query = query.where(col(Match.status) == MatchStatus.FINISHED)
            conditions.append(_result(mine, self.result))
        return query.where(exists().where(and_(*conditions)))


def _result(mine: Any, result: str) -> ColumnElement[bool]:
    """The condition that ``mine`` (a seat) ended the match with ``result``."""
    other = aliased(MatchSeat)
    shared_first = exists().where(
        col(other.match_id) == col(mine.match_id), col(other.seat) != col(mine.seat), col(other.rank) == 1
    )
    first = col(mine.rank) == 1
    if result == "loss":
        return col(mine.rank) > 1
    if result == "draw":
        return and_(first, shared_first)
    return and_(first, ~shared_first)


def _bot_id(session: Session, name: str) -> int:
    found = session.exec(select(Bot.id).where(Bot.name == name)).first()
    if found is None:
        raise NotFoundError(f"no bot named {name!r}")
    return found
