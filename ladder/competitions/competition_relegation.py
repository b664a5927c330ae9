"""Relegation in a competition with tiers (``--relegate-after N``, as CodinGame's leagues move a
bot down): an entry above the lowest tier that finished **last at its table**, alone (below every
other seat; a tie for last does not count), in N consecutive finished matches of its tier's league,
counted since it came into that tier, moves down one tier. Its matches there are taken in the
order they finished (their ids break a tie); any run of N in a row counts, so a server that was
down while a run was made relegates at its next look.

Crash-safe as a promotion is (``competition_tiers``): the tier moves and the ``relegate`` decision
is recorded in one transaction under a unique key (``relegate:BOT:TIER:SINCE``); the leagues'
memberships follow at the same look or the next. A relegated entry's count starts afresh in the
lower tier, for promotion as for relegation (``CompetitionEntry.tier_since_match``).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.competitions.competition_rows import by_name, record
from kingmaker.ladder.competitions.competition_tiers import entries_in_tier, move_tier, tier_league_name
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    CompetitionPhase,
    League,
    Match,
    MatchSeat,
    MatchStatus,
)


def relegate(db: Database, name: str, now: datetime) -> list[str]:
    """Move down every entry whose last-place run in its tier reached ``relegate_after`` (once
    each: the tier and the decision change together). Returns their names."""
    relegated: list[str] = []
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        needed = competition.relegate_after
        if not needed or competition.phase != CompetitionPhase.OPEN or now >= competition.closes_at:
            return []
        for index in range(1, len(competition.tiers)):
            league = session.exec(select(League).where(League.name == tier_league_name(name, index))).first()
            if league is None or league.id is None:
                continue
            places = last_places(session, league.id)
            for entry, bot in entries_in_tier(session, competition, index):
                since = entry.tier_since_match
                run = longest_run([last for match, last in places.get(entry.bot_id, []) if match > since])
                if run < needed:
                    continue
                tier, lower = competition.tiers[index]["name"], competition.tiers[index - 1]["name"]
                reason = (
                    f"{bot.name} relegated from {tier} to {lower}: last at its table in {needed} matches "
                    f"in a row in {tier}"
                )
                key = f"relegate:{bot.id}:{index - 1}:{since}"
                if record(session, competition, key, "relegate", bot.id, reason, now):
                    move_tier(session, entry, index - 1)
                    relegated.append(bot.name)
    return relegated


def last_places(session: Session, league_id: int) -> dict[int, list[tuple[int, bool]]]:
    """Per bot, (match id, whether it finished last alone) of each finished match of the league,
    in the order they finished."""
    rows = session.exec(
        select(Match.id, MatchSeat.bot_id, MatchSeat.rank)
        .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
        .where(Match.league_id == league_id, Match.status == MatchStatus.FINISHED)
        .order_by(col(Match.finished_at), col(Match.id))
    ).all()
    tables: dict[int, dict[int, int]] = {}
    for match, bot, rank in rows:
        tables.setdefault(match or 0, {})[bot] = rank if rank is not None else 1
    found: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    for match, ranks in tables.items():
        worst = max(ranks.values())
        alone = sum(1 for rank in ranks.values() if rank == worst) == 1 and len(ranks) > 1
        for bot, rank in ranks.items():
            found[bot].append((match, alone and rank == worst))
    return found


def longest_run(lasts: list[bool]) -> int:
    """The most consecutive True values."""
    best = current = 0
    for last in lasts:
        current = current + 1 if last else 0
        best = max(best, current)
    return best
