"""Helpers the test folders share."""

from __future__ import annotations

import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from kingmaker.games.api import OptionValue
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def free_port() -> int:
    """A loopback TCP port nobody listens on now (for a server a test starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bot_command(relative_path: str) -> tuple[str, ...]:
    """The command that runs a sample bot file with this interpreter."""
    return (PYTHON, str(REPO / "sample_bots" / relative_path))


def ad_hoc(name: str, command: Sequence[str]) -> Entrant:
    """A seat the server fills by running ``command`` for this match only."""
    return Entrant(name=name, command=tuple(command))


def play(
    server: BackgroundServer,
    game: str,
    entrants: Sequence[Entrant],
    seed: int = 7,
    control: TimeControl | None = None,
    options: Mapping[str, OptionValue] | None = None,
    connect_timeout: float = 15.0,
) -> MatchReport:
    """Play one match through the server's pool, with bots launched for it."""
    roster = Roster(server.server.pool, server.address, connect_timeout)
    match = play_match(roster, game, entrants, seed, options or {}, control or TimeControl(), f"test-{seed}")
    return server.run(match)
