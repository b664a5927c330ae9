"""Play bots against each other in one process, with no server: for tests, tuning and search.

The local runner follows the referee's protocol (match start, one request per decision,
match end) but trusts the bots: an illegal reply raises instead of earning a strike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kingmaker.games.api import Action, OptionValue, Result, Seat
from kingmaker.games.registry import get_game
from kingmaker.sdk.bot import Bot, MatchEnd, MatchStart, Reply, Request, as_bot, resolve_reply


@dataclass(frozen=True)
class LocalMatch:
    """A match played by the local runner."""

    game: str
    seed: int
    result: Result
    log: tuple[dict[Seat, Action], ...]


def play_local(
    game_name: str,
    bots: Sequence[Bot | Callable[[Request], Reply]],
    seed: int = 0,
    options: Mapping[str, OptionValue] | None = None,
    match_id: str = "local",
) -> LocalMatch:
    """Play one match between ``bots`` (seat i is ``bots[i]``) and return its result and log."""
    game = get_game(game_name)
    players = [as_bot(bot) for bot in bots]
    state = game.new(len(players), seed, options)
    resolved = game.resolve_options(options or {})
    names = tuple(bot.name for bot in players)
    for seat, bot in enumerate(players):
        bot.on_match_start(MatchStart(match_id, game_name, seat, len(players), resolved, names))
    log: list[dict[Seat, Action]] = []
    request_id = 0
    while not state.is_over():
        if len(log) >= game.spec.max_decisions:
            raise RuntimeError(f"{game_name} ran past its {game.spec.max_decisions} decisions: an engine bug")
        joint: dict[Seat, Action] = {}
        for seat in state.to_act():
            request_id += 1
            request = Request(
                match_id=match_id,
                request_id=request_id,
                game=game_name,
                seat=seat,
                observation=state.observation(seat),
                legal_actions=state.legal_actions(seat),
                deadline_ms=0,
            )
            joint[seat] = resolve_reply(request, players[seat].act(request))
        state.apply(joint)
        log.append(joint)
    result = state.result()
    for seat, bot in enumerate(players):
        bot.on_match_end(MatchEnd(match_id, seat, result, "FINISHED"))
    return LocalMatch(game_name, seed, result, tuple(log))
