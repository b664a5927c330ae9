"""Records earned in one league alone, never a rating from elsewhere: each version's TrueSkill
rating over a league's finished matches (the finals' seeding: the frozen version's own record in
the open ladder), and each bot's meetings with one bot there (a tier's promotion: results against
its boss in that tier)."""

from __future__ import annotations

from collections import defaultdict

from sqlmodel import Session, col, select

from kingmaker.ladder.ratings.ratings import conservative, rate, settings_for
from kingmaker.ladder.storage.models import Match, MatchSeat, MatchStatus

Version = tuple[int, int | None]
"""(bot, version)."""


def version_ratings(session: Session, game: str, league_id: int | None) -> dict[Version, tuple[float, int]]:
    """(conservative rating, finished matches) of each (bot, version) that played in the league,
    rated from TrueSkill's start by that league's rated matches alone, in the order they finished."""
    if league_id is None:
        return {}
    rows = session.exec(
        select(Match.id, MatchSeat.bot_id, MatchSeat.version, MatchSeat.rank)
        .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
        .where(Match.league_id == league_id, Match.status == MatchStatus.FINISHED, col(Match.rated))
        .order_by(col(Match.finished_at), col(Match.id), col(MatchSeat.seat))
    ).all()
    matches: dict[int, list[tuple[Version, int]]] = {}
    for match_id, bot, version, rank in rows:
        matches.setdefault(match_id or 0, []).append(((bot, version), rank or 1))
    start = settings_for(game)
    ratings: dict[Version, tuple[float, float]] = {}
    played: dict[Version, int] = defaultdict(int)
    for seats in matches.values():
        if len(seats) < 2:
            continue
        before = [ratings.get(who, (start.mu, start.sigma)) for who, _ in seats]
        after = rate(game, before, [rank for _, rank in seats])
        for (who, _), moved in zip(seats, after, strict=True):
            ratings[who] = moved
            played[who] += 1
    return {who: (conservative(*rating), played[who]) for who, rating in ratings.items()}


def meetings_with(session: Session, league_id: int, rival: int, after: int = 0) -> dict[int, tuple[int, int]]:
    """Each bot's (matches it finished above ``rival``, matches it met ``rival`` in) among the
    league's finished matches (those with an id above ``after``)."""
    rows = session.exec(
        select(MatchSeat.match_id, MatchSeat.bot_id, MatchSeat.rank)
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(Match.league_id == league_id, Match.status == MatchStatus.FINISHED, col(Match.id) > after)
    ).all()
    seats: dict[int, dict[int, int]] = defaultdict(dict)
    for match_id, bot, rank in rows:
        seats[match_id][bot] = rank if rank is not None else 1
    found: dict[int, tuple[int, int]] = {}
    for ranks in seats.values():
        if rival not in ranks:
            continue
        for bot, rank in ranks.items():
            if bot != rival:
                above, met = found.get(bot, (0, 0))
                found[bot] = (above + (rank < ranks[rival]), met + 1)
    return found
