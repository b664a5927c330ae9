"""The games of one A/B duel, side by side: each game's duel in a task of its own, its progress
kept as it goes, and the first game that rejects the new version ends the others (the version
must pass in every game, so nothing the others could still show would save it).

Each game's seeds wait for room (``scheduling.duel_room``): with room, a four-game duel takes
about as long as its longest game rather than the sum of the four; under load, it plays one
seed at a time, as before.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from kingmaker.games.registry import get_game
from kingmaker.sdk.duplicate import arrangements
from kingmaker.sdk.sprt import Verdict, confidence, elo_estimate
from kingmaker.server.new_versions.ab_gate import (
    AB_MAX_MATCHES,
    AB_TEST,
    GameResult,
    game_result,
    seconds_left,
    undecided_words,
)
from kingmaker.server.scheduling.duel_room import SeedRoom
from kingmaker.server.scheduling.duels import DuelSetup, DuelState, Played, duel
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster

Report = Callable[[dict[str, Any]], Awaitable[None]]
"""Keeps one game's progress (``ab_progress``) where the author can follow it."""


def ab_progress(
    game: str, against: int, state: DuelState, result: GameResult | None = None,
    elapsed_s: float = 0.0, left_s: float | None = None,
) -> dict[str, Any]:  # fmt: skip
    """A duel's state as a version keeps it (``VersionInfo.ab_games``); once done, the gate's
    verdict, its line and its plain words (``ab_gate.GameResult``) in place of the duel's."""
    mean, low, high = confidence(state.units)
    elo, half = elo_estimate(state.units)
    verdict, reason = state.verdict.value, state.reason
    words = undecided_words(game, against, state.matches, elo, half, left_s)
    if result is not None:
        verdict, reason, words = result.verdict.value, result.line(), result.words()
    return {
        "game": game, "against": against, "seeds": state.units.n, "matches": state.matches,
        "score": mean, "score_low": low, "score_high": high, "elo": elo, "elo_half_width": half,
        "llr": AB_TEST.llr(state.units), "llr_lower": AB_TEST.lower, "llr_upper": AB_TEST.upper,
        "verdict": verdict, "done": state.done, "reason": reason, "words": words,
        "elapsed_seconds": elapsed_s, "seconds_left": 0.0 if result is not None else left_s or 0.0,
    }  # fmt: skip


async def duel_games(
    roster: Roster, bot: str, new: Entrant, active: Entrant, old: int, games: Sequence[str],
    control: TimeControl, room: SeedRoom, report: Report, played: Played | None = None,
) -> GameResult | None:  # fmt: skip
    """Duel ``new`` against ``active`` (version ``old``) in every game at once; the result of
    the first game that rejects it (the others stopped), or None when every game accepts it.
    ``played``: told of every match (the pipeline keeps them as trial matches)."""
    tasks = [
        asyncio.create_task(
            _one_game(roster, bot, new, active, old, game, control, room, report, played), name=game
        )
        for game in games
    ]
    try:
        for finished in asyncio.as_completed(tasks):
            result = await finished
            if not result.passed:
                return result
        return None
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _one_game(
    roster: Roster, bot: str, new: Entrant, active: Entrant, old: int, game: str,
    control: TimeControl, room: SeedRoom, report: Report, played: Played | None,
) -> GameResult:  # fmt: skip
    players = get_game(game).spec.min_players
    per_seed = len(arrangements(players))
    setup = DuelSetup(game, players, AB_TEST, secrets.randbits(40), AB_MAX_MATCHES, control=control)
    cap_seeds = max(1, AB_MAX_MATCHES // per_seed)
    started = time.monotonic()
    async for state in duel(roster, new, active, setup, room, played):
        elapsed = time.monotonic() - started
        if not state.done:
            left = seconds_left(state.units, state.matches, elapsed, per_seed, cap_seeds)
            await report(ab_progress(game, old, state, None, elapsed, left))
            continue
        stopped = "" if state.verdict is not Verdict.CONTINUE or state.at_cap else state.reason
        result = game_result(
            bot, new.version or 0, old, game, state.matches, state.units, state.verdict, state.at_cap, stopped
        )
        await report(ab_progress(game, old, state, result, elapsed))
        return result
    raise RuntimeError(f"the duel in {game} ended without a last state")  # duel() always ends done
