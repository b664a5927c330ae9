"""Playing one match: lease a connection per seat, referee, hand the connections back.

Whatever happens — a bot that never connects, a crash, an engine error, cancellation — every
lease is released: healthy managed bots are kept for their next match, anything else is stopped.
A match whose seat the server could not fill is not played at all: its report says which seat
(``SEAT_UNFILLED``) and that the others were ``ABORTED``, and the ladder voids it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence

from kingmaker.games.api import Game, OptionValue
from kingmaker.games.registry import get_game
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.step_output import StepOutput
from kingmaker.server.refereeing.referee import MatchReport, Referee, SeatReport, SeatState
from kingmaker.server.refereeing.step_stderr import read_steps
from kingmaker.server.seats.deadlines import SeatClock, TimeControl
from kingmaker.server.seats.roster import Entrant, Lease, Roster, SeatOutput


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
    leases = await roster.lease_all(list(entrants), game_name, match_id)
    report: MatchReport | None = None
    outputs: list[SeatOutput] = []
    steps: list[tuple[StepOutput, ...]] = [() for _ in leases]
    try:
        if any(lease.server_fault for lease in leases):
            report = _unfilled(match_id, game, seed, options, leases)
        else:
            books = [_seat_state(lease, control) for lease in leases]
            report = await Referee(match_id, game, seed, options, books, control, roster.live).run()
            # Read before the leases go back: a stopped bot's stderr file is removed then.
            steps = [
                read_steps(lease.process.stderr_file, book.step_marks) if lease.process is not None else ()
                for lease, book in zip(leases, books, strict=True)
            ]
    finally:
        for seat, lease in enumerate(leases):
            healthy = report is not None and not report.seats[seat].end_reason.is_bot_fault
            outputs.append(await roster.release(lease, match_id, reusable=healthy))
    # What each bot wrote during the match is its author's to read; the tail of a seat that ended
    # by a fault tells why.
    seats = tuple(
        dataclasses.replace(
            seat,
            stderr_tail=output.tail if seat.end_reason.is_bot_fault else "",
            stderr=output.stderr,
            stderr_bytes=output.stderr_bytes,
            exit=output.exit,
            step_output=seat_steps,
        )
        for seat, output, seat_steps in zip(report.seats, outputs, steps, strict=True)
    )
    return dataclasses.replace(report, seats=seats)


def _unfilled(
    match_id: str, game: Game, seed: int, options: Mapping[str, OptionValue], leases: Sequence[Lease]
) -> MatchReport:
    """The report of a match that never started because the server could not fill a seat."""
    empty = next(seat for seat, lease in enumerate(leases) if lease.server_fault)
    not_started = f"the match did not start: seat {empty} was empty"
    seats = tuple(
        SeatReport(
            seat=seat,
            bot=lease.entrant.name,
            score=0,
            rank=1,
            strikes=0,
            end_reason=EndReason.SEAT_UNFILLED if lease.server_fault else EndReason.ABORTED,
            detail=lease.failure if lease.server_fault else not_started,
        )
        for seat, lease in enumerate(leases)
    )
    now = time.time()
    return MatchReport(
        match_id=match_id,
        game=game.spec.name,
        edition=game.spec.edition,
        seed=seed,
        options=game.resolve_options(options),
        seats=seats,
        decisions=(),
        observation_digests=tuple(() for _ in leases),
        started_at=now,
        finished_at=now,
        result=None,
    )


def _seat_state(lease: Lease, control: TimeControl) -> SeatState:
    cpu = lease.process.cpu_clock if lease.process is not None else None
    book = SeatState(
        bot=lease.entrant.name,
        session=lease.session,
        clock=SeatClock(lease.entrant.control or control, charges_cpu=cpu is not None),
        exit=lease.exit,
        cpu=cpu,
        stderr_at=lease.process.stderr_size if lease.process is not None else None,
    )
    if lease.session is None:
        book.detail = lease.failure or "the bot never connected"
    return book
