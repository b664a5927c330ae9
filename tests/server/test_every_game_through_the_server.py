"""Each game, played to the end between bot processes through a real server."""

from __future__ import annotations

import pytest

from kingmaker.games.registry import get_game
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.deadlines import TimeControl

from support import ad_hoc, bot_command, play

RANDOM = bot_command("random_bot.py")
STRONGER = {
    "kingdoms": bot_command("kingdoms/greedy_bot.py"),
    "kingsburg": bot_command("kingsburg/heuristic_bot.py"),
    "kings_road": bot_command("kings_road/greedy_bot.py"),
    "kingsville": bot_command("kingsville/greedy_bot.py"),
}


@pytest.mark.parametrize(
    ("game", "players"),
    [("kingsburg", 5), ("kingsburg", 2), ("kings_road", 5), ("kingsville", 4), ("kingdoms", 4)],
)
def test_a_full_match_between_bot_processes(server: BackgroundServer, game: str, players: int) -> None:
    seats = [ad_hoc("stronger", STRONGER[game])] + [ad_hoc(f"random-{i}", RANDOM) for i in range(1, players)]
    report = play(server, game, seats, 5, TimeControl(decision_ms=2000))
    assert [seat.end_reason for seat in report.seats] == [EndReason.FINISHED] * players
    assert all(seat.strikes == 0 for seat in report.seats)
    assert all(d.source == "bot" for decisions in report.decisions for d in decisions)
    # Simultaneous decisions reach the referee as one joint action per decision.
    if get_game(game).spec.simultaneous:
        assert any(len(decisions) > 1 for decisions in report.decisions)
    state = get_game(game).new(players, report.seed, report.options)
    for decisions in report.decisions:
        state.apply({d.seat: d.action for d in decisions})
    assert state.result().scores == tuple(seat.score for seat in report.seats)
