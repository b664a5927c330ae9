"""Duels on the server: two registered bots (or two versions of one) in duplicate matches until an
SPRT decides. Used by ``kingmaker duel NAME NAME@2`` (the ``Duel`` RPC) and by ``submit --ab``.

Each seed is played in every seat order at once (``sdk.duplicate``); the matches are refereed
like any other but never rated: a duel is a measurement, not part of the ladder (``submit --ab``
keeps its matches as the version's trial matches, through ``played``).
A seat the server could not fill (a remote bot that is away, a command that cannot start) ends
the duel undecided, with the reason, rather than count as a result.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from kingmaker.games.api import OptionValue
from kingmaker.ladder.outcomes import EndReason
from kingmaker.sdk.duplicate import arrangements, pairwise_score
from kingmaker.sdk.sprt import PENTANOMIAL, Sprt, Tally, Verdict, verdict_words
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.scheduling.duel_room import SeedRoom
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster

DEFAULT_MAX_MATCHES = 400

Played: TypeAlias = Callable[[MatchReport, Sequence[Entrant]], Awaitable[None]]
"""Told of each match played, with its seats' entrants (``submit --ab`` keeps them as trial matches)."""


@dataclass(frozen=True)
class DuelSetup:
    game: str
    players: int
    sprt: Sprt
    first_seed: int
    max_matches: int = DEFAULT_MAX_MATCHES
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    control: TimeControl = field(default_factory=TimeControl)


@dataclass(frozen=True)
class DuelState:
    """Where a duel stands after a seed."""

    units: Tally
    matches: int
    verdict: Verdict
    done: bool = False
    reason: str = ""
    """Why it ended: the verdict in words, the match count ran out, or what stopped it."""
    at_cap: bool = False
    """It ended because the match count ran out (``submit --ab`` then decides by the LLR's sign)."""


async def duel(
    roster: Roster, a: Entrant, b: Entrant, setup: DuelSetup, room: SeedRoom | None = None,
    played: Played | None = None,
) -> AsyncIterator[DuelState]:  # fmt: skip
    """Play seeds until the test decides; a state after every seed, the last one ``done``.
    ``room``: shared by the games of one duel played side by side (each seed waits for room).
    ``played``: told of each match once its seed is over."""
    orders = arrangements(setup.players)
    units = Tally(PENTANOMIAL)
    matches = 0
    seeds = max(1, setup.max_matches // len(orders))
    room = room or SeedRoom()
    for seed in range(setup.first_seed, setup.first_seed + seeds):
        async with room.seed():
            reports = await asyncio.gather(
                *(
                    play_match(
                        roster,
                        setup.game,
                        [a if is_a else b for is_a in order],
                        seed,
                        setup.options,
                        setup.control,
                        f"duel-{setup.game}-{seed}-{number}",
                    )
                    for number, order in enumerate(orders)
                )
            )
        if played is not None:
            for order, report in zip(orders, reports, strict=True):
                await played(report, [a if is_a else b for is_a in order])
        unfilled = [
            seat for report in reports for seat in report.seats if seat.end_reason is EndReason.SEAT_UNFILLED
        ]
        if unfilled:
            yield DuelState(
                units, matches, Verdict.CONTINUE, True, f"stopped: {unfilled[0].bot}: {unfilled[0].detail}"
            )
            return
        scores = [
            pairwise_score([seat.rank for seat in report.seats], order)
            for order, report in zip(orders, reports, strict=True)
        ]
        units.add(sum(scores) / len(scores))
        matches += len(scores)
        verdict = setup.sprt.verdict(units)
        if verdict is not Verdict.CONTINUE:
            yield DuelState(units, matches, verdict, True, _said(verdict, a, b, setup.sprt))
            return
        yield DuelState(units, matches, verdict)
    yield DuelState(units, matches, Verdict.CONTINUE, True, f"undecided after {matches} matches", at_cap=True)


def named(entrant: Entrant) -> str:
    """A duellist as the verdict names it: "annbot v3" (two versions of one bot read apart)."""
    return entrant.name if entrant.version is None else f"{entrant.name} v{entrant.version}"


def _said(verdict: Verdict, a: Entrant, b: Entrant, sprt: Sprt) -> str:
    return verdict_words(verdict, named(a), named(b), sprt.elo0, sprt.elo1)
