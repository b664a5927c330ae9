"""A finished match re-run by its engine, decision by decision, for the replay viewer.

The stored log (seed, options, every joint action; ``ladder.match_reads.match_log``) is played again
exactly as ``kingmaker replay`` does. Before the first decision and after each one, the frame keeps
what every seat was shown (its observation as plain data), the chance drawn during the decision
(read through a recording RNG put into the state), who played what and the time they were charged.
Only finished matches have a log, so nothing of a match still running can be replayed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kingmaker.games import serial
from kingmaker.games.api import Action, GameState
from kingmaker.games.registry import get_game
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.history import match_summary
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.web.chance import describe_chance
from kingmaker.server.web.scores import running_scores


class ReplayUnavailable(Exception):
    """The match cannot be replayed (not finished, no log, or a rules edition this engine lacks)."""


class RecordingRng:
    """Passes draws through to the state's own generator and remembers them, so a frame can say
    what chance did during its decision."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.draws: list[tuple[int, int]] = []

    def randrange(self, n: int) -> int:
        value: int = self.inner.randrange(n)
        self.draws.append((n, value))
        return value


@dataclass(frozen=True)
class Move:
    seat: int
    bot: str
    action: str
    """The action for people: its type and fields."""
    data: dict[str, Any]
    """The action as the log stores it (``serial.action_to_data``)."""
    ms: float | None
    """The time the seat was charged for it (None: not recorded, or no bot was asked)."""
    source: str
    """bot, default (after a fault), fallback (a forfeited seat), or unknown for older logs."""


@dataclass(frozen=True)
class ChanceEvent:
    text: str
    seats: tuple[int, ...] | None = None
    """The seats that saw it; None: everyone."""


@dataclass(frozen=True)
class Frame:
    step: int
    """0 before the first decision; n after the n-th joint decision."""
    moves: tuple[Move, ...]
    chance: tuple[ChanceEvent, ...]
    observations: tuple[Any, ...]
    """Each seat's observation as plain data (``serial.to_data``): what that seat was shown."""
    scores: tuple[int, ...]
    to_act: tuple[int, ...]
    secrets: dict[str, Any] = field(default_factory=dict)
    """What no seat could see (the full state only): e.g. Kingsburg's enemy card before winter."""


@dataclass(frozen=True)
class Replay:
    match_id: int
    game: str
    title: str
    score_name: str
    bots: tuple[str, ...]
    frames: tuple[Frame, ...]
    final_scores: tuple[int, ...]
    final_ranks: tuple[int, ...]
    recorded_scores: tuple[int | None, ...]


def load_replay(db: Database, match_id: int) -> Replay:
    """The match's replay, cached: a finished match never changes."""
    with _lock:
        cached = _cache.get((id(db), match_id))
    if cached is not None:
        return cached
    replay = build_replay(db, match_id)
    with _lock:
        _cache[(id(db), match_id)] = replay
        while len(_cache) > CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
    return replay


CACHE_SIZE = 16
_cache: dict[tuple[int, int], Replay] = {}
_lock = threading.Lock()


def build_replay(db: Database, match_id: int) -> Replay:
    """Re-run match ``match_id`` from its log; ``ReplayUnavailable`` says why it cannot be."""
    summary = match_summary(db, match_id)
    if summary.status != MatchStatus.FINISHED:
        raise ReplayUnavailable(f"match {match_id} is {summary.status}: only finished matches replay")
    try:
        log = match_log(db, match_id)
    except NotFoundError as error:
        raise ReplayUnavailable(str(error)) from None
    game = get_game(log.game)
    if log.rules_edition and log.rules_edition != game.spec.edition:
        raise ReplayUnavailable(
            f"match {match_id} was played under rules {log.rules_edition}, this engine is {game.spec.edition}"
        )
    players = len(summary.bots)
    state = game.new(players, log.seed, log.options)
    recorder = RecordingRng(getattr(state, "rng", None))
    if hasattr(state, "rng"):
        state.rng = recorder
    times = log.timings.get("decisions") or []
    frames = [_frame(log.game, 0, state, (), (), None)]
    for number, joint in enumerate(log.actions, start=1):
        actions = {int(seat): serial.action_from_data(game.spec, data) for seat, data in joint.items()}
        timing = times[number - 1] if number - 1 < len(times) else {}
        moves = tuple(
            _move(seat, summary.bots[seat], action, joint[str(seat)], timing.get(str(seat)))
            for seat, action in sorted(actions.items())
        )
        before = frames[-1]
        drawn = len(recorder.draws)
        try:
            state.apply(actions)
        except ValueError as error:
            raise ReplayUnavailable(f"decision {number} does not replay: {error}") from None
        frame = _frame(log.game, number, state, moves, recorder.draws[drawn:], before)
        frames.append(frame)
    if not state.is_over():
        raise ReplayUnavailable(f"the log of match {match_id} ends before the game does")
    result = state.result()
    return Replay(
        match_id=match_id,
        game=log.game,
        title=game.spec.title,
        score_name=game.spec.score_name,
        bots=summary.bots,
        frames=tuple(frames),
        final_scores=result.scores,
        final_ranks=result.ranks,
        recorded_scores=tuple(seat.score for seat in summary.seats),
    )


def _frame(
    game: str,
    step: int,
    state: GameState,
    moves: tuple[Move, ...],
    draws: list[tuple[int, int]] | tuple[()],
    before: Frame | None,
) -> Frame:
    observations = tuple(serial.to_data(state.observation(seat)) for seat in range(state.players))
    chance = describe_chance(game, before.observations if before else None, observations, moves, list(draws))
    return Frame(
        step=step,
        moves=moves,
        chance=tuple(ChanceEvent(text, seats) for text, seats in chance),
        observations=observations,
        scores=running_scores(game, observations[0]),
        to_act=tuple(state.to_act()),
        secrets=_secrets(game, state),
    )


def _move(seat: int, bot: str, action: Action, data: dict[str, Any], timing: Any) -> Move:
    ms, source = (timing[0], str(timing[1])) if isinstance(timing, list) and len(timing) == 2 else (None, "")
    return Move(seat, bot, action_text(action), data, ms, source or "unknown")


def action_text(action: Action) -> str:
    """``PlaceCastle(rank=2, row=1, column=3)`` as ``PlaceCastle rank 2, row 1, column 3``."""
    data = serial.to_data(action)
    name = type(action).__name__
    if not data:
        return name
    return f"{name} " + fields_text(data)


def fields_text(data: dict[str, Any]) -> str:
    """An action's fields as text: ``rank 2, row 1, column 3``."""
    return ", ".join(f"{key} {_short(value)}" for key, value in data.items())


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("name") or " ".join(f"{k}={_short(v)}" for k, v in value.items()))
    if isinstance(value, list):
        return "[" + ", ".join(_short(item) for item in value) + "]"
    return str(value)


def _kingsburg_secrets(state: Any) -> dict[str, Any]:
    if state.is_over() or state.revealed:
        return {}
    return {"enemy": serial.to_data(state.enemy())}


def _kingdoms_secrets(state: Any) -> dict[str, Any]:
    return {"supply": [tile.name for tile in state.supply]}


_SECRETS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "kingsburg": _kingsburg_secrets,
    "kingdoms": _kingdoms_secrets,
}


def _secrets(game: str, state: GameState) -> dict[str, Any]:
    reader = _SECRETS.get(game)
    return reader(state) if reader is not None else {}
