"""Real match logs without a server: a seeded random game played by the engine, logged as the
referee logs it (``server.refereeing.referee``, ``server.scheduling.rated.outcome``), for the tests
of how logs are stored and migrated."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from kingmaker.games.api import Action, Seat
from kingmaker.games.registry import get_game
from kingmaker.ladder.matches.think_times import THINK_KEY, rounded
from kingmaker.ladder.records import actions_to_data
from kingmaker.sdk.codec import codec_for, digest


@dataclass(frozen=True)
class PlayedLog:
    game: str
    edition: str
    seed: int
    players: int
    actions: list[dict[str, Any]]
    digests: list[list[str]]
    timings: dict[str, Any]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeited: Seat | None


def played_log(game_name: str, players: int, seed: int, forfeit_at: int | None = None) -> PlayedLog:
    """One match, every seat choosing at random. With ``forfeit_at``, the last seat forfeits at
    that decision: from then on the referee's fallback plays it, unasked and unshown."""
    game = get_game(game_name)
    codec = codec_for(game_name)
    chooser = random.Random(seed)
    state = game.new(players, seed, {})
    forfeited = players - 1 if forfeit_at is not None else None
    log: list[dict[Seat, Action]] = []
    digests: list[list[str]] = [[] for _ in range(players)]
    decisions: list[dict[str, list[Any]]] = []
    think: list[list[float]] = [[] for _ in range(players)]
    while not state.is_over():
        joint: dict[Seat, Action] = {}
        timing: dict[str, list[Any]] = {}
        for seat in state.to_act():
            joint[seat] = chooser.choice(state.legal_actions(seat))
            if forfeited == seat and forfeit_at is not None and len(log) >= forfeit_at:
                timing[str(seat)] = [None, "fallback"]
                continue
            digests[seat].append(digest(codec.pack_observation(state.observation(seat))))
            ms = round(chooser.uniform(0.2, 900.0), 1)  # what the referee keeps: 0.1 ms
            timing[str(seat)] = [ms, "bot" if chooser.random() < 0.95 else "default"]
            think[seat].append(ms)
        state.apply(joint)
        log.append(joint)
        decisions.append(timing)
    result = state.result()
    duration = round(chooser.uniform(0.1, 60), 3)
    return PlayedLog(
        game=game_name,
        edition=game.spec.edition,
        seed=seed,
        players=players,
        actions=actions_to_data(log),
        digests=digests,
        timings={"duration_s": duration, THINK_KEY: rounded(think), "decisions": decisions},
        scores=result.scores,
        ranks=result.ranks,
        forfeited=forfeited,
    )
