"""A bot written from docs/protocol.md and the .proto files alone (no SDK, no generated code)
plays every game through the server, answering with full actions rather than indexes."""

from __future__ import annotations

import pytest
from protocol_support import PYTHON_RANDOM, end_reasons, run_match

from kingmaker.games.registry import game_names
from kingmaker.server.background import BackgroundServer

from support import bot_command


@pytest.mark.parametrize("game", game_names())
def test_the_bot_from_the_doc_finishes_a_match(server: BackgroundServer, game: str) -> None:
    seats = [("python-random", PYTHON_RANDOM), ("from-the-doc", bot_command("from_the_doc/bot.py"))]
    record = run_match(server, game, seats, seed=3)
    assert end_reasons(record) == ["FINISHED", "FINISHED"]
    assert record.seats[1].strikes == 0, "every full action it sent was legal and well formed"
    sources = {action.source for joint in record.decisions for action in joint.actions if action.seat == 1}
    assert sources == {"bot"}
