"""What may be shown of a match: the one rule every page, API and live feed asks.

A match's seed decides every draw of its game, so its seed, its log and anything derived from
them (a replay, the chance drawn, the scores step by step, the seats' views, the observation
digests, how many decisions it took) tell the future of every other match played from the same
seed. Duplicate leagues play each seed once per rotation of the seats, a voided match is replayed
from its seed, and two leagues (or one-off matches) may well be given the same seed. So:

- a match's secrets show once it has finished and no match of the same game with the same seed,
  in any league or none, is still scheduled or running (``secrets_verdict``);
- a running match may be watched live (its public board only, never a seat's hidden state) only
  while it is the one match of its game and seed not yet over (``live_verdict``).

Its result (scores and places) shows as soon as it finishes, twins or not: the ratings move then
anyway, and a result says nothing of the draws to come.

Nobody but the admin is an exception, a seat's own bot's owner included: what a bot wrote on
stderr (its logs, the output of each step) is derived from what it was shown, so a seat's logs
are secrets of its match like the replay (``withhold_logs``). Every Admin RPC and page that names
a match asks here; tests/authors/test_every_path_keeps_twins_hidden.py walks each of them, from
the service's descriptor and the site's routes, so a new one cannot skip the rule.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import func
from sqlmodel import Session, col, select

from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.seat_logs import SeatLogRecord
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Match, MatchStatus

NOT_OVER = (MatchStatus.SCHEDULED, MatchStatus.RUNNING)


@dataclass(frozen=True)
class Verdict:
    shown: bool
    reason: str = ""
    """Why not, in a sentence for people (empty when shown)."""


def secrets_verdict(db: Database, match_id: int) -> Verdict:
    """Whether match ``match_id``'s seed, log, replay and whatever derives from them may be shown."""
    with db.read() as session:
        match = _match(session, match_id)
        if match.status != MatchStatus.FINISHED:
            return Verdict(False, f"the replay shows once the match has finished (it is {match.status})")
        waiting = twins_not_over(session, match)
    if waiting:
        return Verdict(False, _twins_text(waiting, "its replay and seed show"))
    return Verdict(True)


def live_verdict(db: Database, match_id: int) -> Verdict:
    """Whether running match ``match_id`` may be watched (its public board, as a spectator)."""
    with db.read() as session:
        match = _match(session, match_id)
        if match.status != MatchStatus.RUNNING:
            return Verdict(False, f"the match is {match.status}, not running")
        waiting = twins_not_over(session, match)
    if waiting:
        return Verdict(False, _twins_text(waiting, "nothing of it shows"))
    return Verdict(True)


def hidden_among(db: Database, matches: Sequence[tuple[int, str, int, str]]) -> set[int]:
    """Of these matches, given as (id, game, seed, status), those whose secrets may not show (not
    finished, or sharing game and seed with a match not over): one read for a whole page."""
    hidden = {match_id for match_id, _, _, status in matches if status != MatchStatus.FINISHED}
    finished = [(match_id, game, seed) for match_id, game, seed, status in matches if match_id not in hidden]
    if not finished:
        return hidden
    with db.read() as session:
        open_ = session.exec(
            select(Match.id, Match.game, Match.seed).where(
                col(Match.status).in_(NOT_OVER), col(Match.seed).in_({seed for _, _, seed in finished})
            )
        ).all()
    not_over = {(game, seed): match_id for match_id, game, seed in open_}
    return hidden | {
        match_id for match_id, game, seed in finished if not_over.get((game, seed), match_id) != match_id
    }


def logs_hidden_of(db: Database, match_ids: Collection[int]) -> set[int]:
    """Of these stored matches (by id), those whose seats' logs may not show: not over yet, or
    sharing game and seed with another match not over. A void match's logs show once its replay
    is over, as a finished one's do (one read for a page; an unknown id is left out)."""
    if not match_ids:
        return set()
    with db.read() as session:
        rows = session.exec(
            select(Match.id, Match.game, Match.seed, Match.status).where(col(Match.id).in_(set(match_ids)))
        ).all()
        open_ = session.exec(
            select(Match.id, Match.game, Match.seed).where(
                col(Match.status).in_(NOT_OVER), col(Match.seed).in_({seed for _, _, seed, _ in rows})
            )
        ).all()
    not_over: dict[tuple[str, int], set[int]] = {}
    for match_id, game, seed in open_:
        not_over.setdefault((game, seed), set()).add(int(match_id or 0))
    return {
        int(match_id or 0)
        for match_id, game, seed, status in rows
        if status in NOT_OVER or not_over.get((game, seed), set()) - {match_id}
    }


WITHHELD = "withheld: a match sharing this match's seed is not over; its logs show once it is"


def withhold_logs(db: Database, logs: Sequence[SeatLogRecord]) -> list[SeatLogRecord]:
    """The seat logs as anyone but the admin may read them: of a match whose secrets may not show,
    only which seat it was and how it ended; no stderr, no step's output, no strike's text (a
    bot may print what it was shown, and that tells the draws of its twin still in play)."""
    hidden = logs_hidden_of(db, {log.match_id for log in logs})
    return [
        replace(log, detail=WITHHELD, strikes=[], exit="", stderr="", stderr_bytes=0, steps=[])
        if log.match_id in hidden
        else log
        for log in logs
    ]


def twins_not_over(session: Session, match: Match) -> int:
    """How many other matches of ``match``'s game and seed are scheduled or running (one indexed read)."""
    count = session.exec(
        select(func.count())
        .select_from(Match)
        .where(
            Match.game == match.game,
            Match.seed == match.seed,
            col(Match.status).in_(NOT_OVER),
            Match.id != match.id,
        )
    ).one()
    return int(count)


def _twins_text(waiting: int, what: str) -> str:
    if waiting == 1:
        return f"another match shares this match's seed and is not over: {what} once it is"
    return f"{waiting} other matches share this match's seed and are not over: {what} once all are"


def _match(session: Session, match_id: int) -> Match:
    match = session.get(Match, match_id)
    if match is None:
        raise NotFoundError(f"no match {match_id}")
    return match
