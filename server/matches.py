"""Playing one match: lease a connection per seat, referee, hand the connections back.

Whatever happens — a bot that never connects, a crash, an engine error, cancellation — every
lease is released: healthy managed bots are kept for their next match, anything else is stopped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from kingmaker.games.api import OptionValue
from kingmaker.games.registry import get_game
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.deadlines import SeatClock, TimeControl
from kingmaker.server.referee import MatchReport, Referee, SeatState
from kingmaker.server.roster import Entrant, Lease, Roster


async def play_match(
    roster: Roster,
    game_name: str,
    entrants: Sequence[Entrant],
    seed: int,
    options: Mapping[str, OptionValue],
    control: TimeControl,
    match_id: str,
) -> MatchReport:
    game = get_game(game_name)
    game.new(len(entrants), seed, options)  # refuse bad player counts and options before launching
    leases = await roster.lease_all(list(entrants), match_id)
    report: MatchReport | None = None
    tails: list[str] = []
    try:
        books = [_seat_state(lease, control) for lease in leases]
        report = await Referee(match_id, game, seed, options, books, control).run()
    finally:
        for seat, lease in enumerate(leases):
            healthy = report is not None and report.seats[seat].end_reason is EndReason.FINISHED
            tails.append(await roster.release(lease, match_id, reusable=healthy))
    # Keep the stderr tail of every seat that ended by a fault: it tells its author why.
    seats = tuple(
        dataclasses.replace(seat, stderr_tail=tail) if seat.end_reason.is_bot_fault else seat
        for seat, tail in zip(report.seats, tails, strict=True)
    )
    return dataclasses.replace(report, seats=seats)


def _seat_state(lease: Lease, control: TimeControl) -> SeatState:
    book = SeatState(
        bot=lease.entrant.name, session=lease.session, clock=SeatClock(control), crashed=lease.crashed
    )
    if lease.session is None:
        book.detail = lease.failure or "the bot never connected"
    return book
