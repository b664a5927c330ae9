"""Every starter kit, as an author gets it from `kingmaker init` and the server builds it from its
manifest when it is submitted (kit_submissions.py: once a run, the build shared with
test_kits_submit.py), plays every game against the sample bots, as a managed bot in the jail and
as a remote bot, with no strike and no fault. Nothing is cached across runs but the toolchain
caches a server keeps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kept_processes import two_matches_in_a_row
from kit_submissions import KITS, Submission, submitted
from kits_support import (
    OPPONENTS,
    bot_command,
    opponent,
    played_cleanly,
    register_opponents,
    remote_bot,
    run_match,
)

from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.v1 import admin_pb2

# The first test of a kit submits it, and the server builds it: minutes for C++ or Rust on a
# loaded two-core machine.
pytestmark = pytest.mark.timeout(1800)


def built(kits: dict[str, Submission], factory: pytest.TempPathFactory, lang: str) -> Submission:
    """The kit as the server built it; the test fails (not skips) if the server could not."""
    submission = submitted(kits, factory, lang)
    assert submission.exit_code == 0, submission.output
    return submission


@pytest.fixture
def kit_server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    """A real server whose jail is on, with time for a JVM to start on a loaded machine."""
    if not bubblewrap().usable:
        pytest.skip(f"no jail here: {bubblewrap().reason}")
    config = ServerConfig(
        address="127.0.0.1:0", time_control=TimeControl(decision_ms=2000), connect_timeout=60.0
    )
    running = BackgroundServer(config)
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.parametrize("game", sorted(OPPONENTS))
@pytest.mark.parametrize("lang", KITS)
def test_a_kit_plays_every_game_as_a_managed_bot_in_the_jail(
    kit_server: BackgroundServer,
    kit_submissions: dict[str, Submission],
    tmp_path_factory: pytest.TempPathFactory,
    lang: str,
    game: str,
) -> None:
    kit = built(kit_submissions, tmp_path_factory, lang)
    folder, manifest = kit.folder, kit.manifest
    seats = [
        admin_pb2.MatchSeat(
            bot=f"{lang}-kit", command=bot_command(folder, manifest), working_directory=str(folder)
        ),
        admin_pb2.MatchSeat(bot="sample", command=opponent(game)),
    ]
    record = run_match(kit_server, game, seats)
    faults = played_cleanly(record, 0) + played_cleanly(record, 1)
    assert not faults, "\n".join(faults)


@pytest.mark.parametrize("lang", KITS)
def test_a_kit_plays_every_game_as_a_remote_bot(
    kit_server: BackgroundServer,
    kit_submissions: dict[str, Submission],
    tmp_path_factory: pytest.TempPathFactory,
    lang: str,
) -> None:
    kit = built(kit_submissions, tmp_path_factory, lang)
    folder, manifest = kit.folder, kit.manifest
    register_opponents(kit_server)
    # One process plays all four matches on its one stream, as a remote bot would.
    with remote_bot(kit_server, folder, bot_command(folder, manifest), f"{lang}-remote"):
        for game in sorted(OPPONENTS):
            seats = [admin_pb2.MatchSeat(bot=f"{lang}-remote"), admin_pb2.MatchSeat(bot=f"sample-{game}")]
            record = run_match(kit_server, game, seats)
            faults = played_cleanly(record, 0)
            assert not faults, f"{game}: " + "\n".join(faults)


MATCH_OVER = {
    "ruby": "ruby-bot: match {} over",
    "go": "go-bot: match {} over",
    "typescript": "typescript-bot: match {} over",
    "cpp": "cpp-bot: match {} over",
    "java": "java-bot: match {} over",
    "rust": "rust-bot: match {} over",  # behind the bridge: acknowledged in JSON lines
}
"""The line each kit that prints one writes as a match ends (the Python kit's SDK prints none)."""


@pytest.mark.parametrize("lang", [kit for kit in KITS if kit.values[0] in MATCH_OVER])
def test_a_kits_line_at_a_matchs_end_stays_in_that_matchs_log(
    kit_server: BackgroundServer,
    kit_submissions: dict[str, Submission],
    tmp_path_factory: pytest.TempPathFactory,
    lang: str,
) -> None:
    """Issue 47: "ruby-bot: match 184 over" stood in match 185's log. A kit acknowledges each
    match's end once it has printed its line, and the server waits for that before it cuts the
    log of a process it keeps for the next match."""
    kit = built(kit_submissions, tmp_path_factory, lang)
    folder, manifest = kit.folder, kit.manifest
    (first, first_log), (second, second_log) = two_matches_in_a_row(
        kit_server, bot_command(folder, manifest), str(folder)
    )
    line = MATCH_OVER[lang]
    assert line.format(first) in first_log, first_log
    assert line.format(second) in second_log, second_log
    assert line.format(first) not in second_log, second_log
