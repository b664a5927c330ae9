"""A competition's deadline ahead, told once to each author with an entry in it: the entries are
frozen at the deadline (docs/competitions.md), so an author has until then to submit or select
the version that will play the finals. One indexed read of the open competitions whose deadline
is near, then one notice per author who was not told yet (``notices.notify_in``'s key)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import col, select

from kingmaker.ladder.bots.notices import notify_in
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, Competition, CompetitionEntry, CompetitionPhase, NoticeKind

AHEAD = timedelta(hours=24)
"""How long before a deadline its authors are told."""


def tell_deadlines(db: Database, now: datetime, ahead: timedelta = AHEAD) -> int:
    """Tell the authors of entries in open competitions whose deadline is within ``ahead`` of
    ``now``; how many notices were written."""
    with db.read() as session:
        near = session.exec(
            select(Competition.id).where(
                Competition.phase == CompetitionPhase.OPEN,
                col(Competition.closes_at) > now,
                col(Competition.closes_at) <= now + ahead,
            )
        ).all()
    if not near:
        return 0
    told = 0
    with db.transaction() as session:
        for competition_id in near:
            competition = session.get(Competition, competition_id)
            if competition is None or competition.phase != CompetitionPhase.OPEN:
                continue
            entrants = session.exec(
                select(Bot.author_id, Bot.name)
                .join(CompetitionEntry, col(CompetitionEntry.bot_id) == col(Bot.id))
                .where(CompetitionEntry.competition_id == competition_id)
                .order_by(col(Bot.name))
            ).all()
            hours = max(1, round((competition.closes_at - now).total_seconds() / 3600))
            closes = f"{competition.closes_at:%Y-%m-%d %H:%M} UTC"
            for author_id in dict.fromkeys(author for author, _ in entrants):
                names = ", ".join(name for author, name in entrants if author == author_id)
                summary = (
                    f"{competition.name} closes in about {hours} h ({closes}): "
                    f"{names} will be frozen at the version selected then"
                )
                told += notify_in(
                    session, author_id, NoticeKind.DEADLINE_AHEAD, summary,
                    competition=competition.name, key=f"deadline:{competition.id}",
                )  # fmt: skip
    return told
