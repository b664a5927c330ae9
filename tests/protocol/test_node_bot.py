"""The Node.js sample bot (grpc-js, reading proto/ at run time) plays every game through the server."""

from __future__ import annotations

import pytest
from protocol_support import PYTHON_RANDOM, end_reasons, node_bot_command, run_match

from kingmaker.games.registry import game_names
from kingmaker.server.background import BackgroundServer


@pytest.mark.parametrize("game", game_names())
def test_the_node_bot_finishes_a_match_against_a_python_bot(server: BackgroundServer, game: str) -> None:
    record = run_match(server, game, [("node", node_bot_command()), ("python-random", PYTHON_RANDOM)])
    assert end_reasons(record) == ["FINISHED", "FINISHED"]
    node_seat = record.seats[0]
    assert node_seat.strikes == 0, "every reply of the Node bot was on time and well formed"
    # Every decision of the Node seat came from the bot itself, none from the fallback policy.
    sources = {action.source for joint in record.decisions for action in joint.actions if action.seat == 0}
    assert sources == {"bot"}
    assert sorted(seat.rank for seat in record.seats)[0] == 1
