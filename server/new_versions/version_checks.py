"""Validation: a built version plays the game's random bot before it may meet the ladder.

For every game it plays and every seat count the game allows, one match against random bots
(unrated, kept as the version's trial matches, on the server's own roster), the version in a
different seat at each count. It passes when it finishes every one with no fault of its own;
the first failure ends the validation, and the author is told which game, seat count and seat,
how it ended, and the end of its stderr.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kingmaker.games.registry import get_game
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.building.log_tail import ending
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.scheduling.duels import Played
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster

RANDOM_BOT = (sys.executable, "-m", "kingmaker.sample_bots.random_bot")
VALIDATION_SEED = 24


@dataclass(frozen=True)
class Validation:
    passed: bool
    matches: list[dict[str, Any]] = field(default_factory=list)
    """One dict per match played (``ValidationMatch``'s fields)."""
    reason: str = ""
    """Why it did not pass, in a sentence; empty when it passed."""


async def validate(
    roster: Roster, version: Entrant, games: Sequence[str], control: TimeControl,
    on_match: Played | None = None,
) -> Validation:  # fmt: skip
    """Play the version against random bots at every seat count of each game, until one fails.
    ``on_match``: told of each match (the pipeline keeps them as trial matches)."""
    played: list[dict[str, Any]] = []
    for game in sorted(games):
        spec = get_game(game).spec
        for players in range(spec.min_players, spec.max_players + 1):
            seat = (players - spec.min_players) % players
            entrants = [  # (kept warm from match to match, each seat's under a name of its own)
                Entrant(f"random-{index}", command=RANDOM_BOT, keep_as=f"validation random-{index}")
                for index in range(players)
            ]
            entrants[seat] = version
            match_id = f"validation-{uuid.uuid4().hex[:8]}"
            report = await play_match(
                roster, game, entrants, VALIDATION_SEED + players, {}, control, match_id
            )
            if on_match is not None:
                await on_match(report, entrants)
            mine = report.seats[seat]
            passed = mine.end_reason is EndReason.FINISHED
            played.append(
                {
                    "game": game,
                    "players": players,
                    "seat": seat,
                    "end_reason": mine.end_reason.value,
                    "detail": mine.detail,
                    "stderr_tail": "" if passed else mine.stderr_tail,
                    "passed": passed,
                }
            )
            if not passed:
                why = _why(game, players, seat, mine.end_reason, mine.detail, report)
                return Validation(False, played, why + ending(mine.stderr_tail))
    return Validation(True, played)


def _why(game: str, players: int, seat: int, reason: EndReason, detail: str, report: Any) -> str:
    where = f"{game} with {players} players, seat {seat}"
    if reason is EndReason.ABORTED:
        others = [s for s in report.seats if s.end_reason is EndReason.SEAT_UNFILLED]
        cause = others[0].detail if others else detail
        return f"the server could not play its validation match ({where}): {cause}"
    return f"its validation match ({where}) ended {reason.value}: {detail}"
