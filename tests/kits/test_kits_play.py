"""Every starter kit, as an author gets it from `kingmaker init`: built by its manifest's
command, it plays every game against the sample bots, as a managed bot in the jail and as a
remote bot, with no strike and no fault. Each kit is built once per run (builds are the slow
part); nothing is cached across runs."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kits_support import (
    OPPONENTS,
    bot_command,
    build_kit,
    fetch_packages,
    init_kit,
    opponent,
    played_cleanly,
    register_opponents,
    remote_bot,
    run_match,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))
from test_match_end_output import two_matches_in_a_row

from kingmaker.kits.languages import LANGUAGES, check
from kingmaker.kits.manifest import Manifest
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.v1 import admin_pb2

# A kit is built once per test session, so under pytest-xdist all of a kit's tests run on one
# worker (its own group), and the kits' builds are spread over the workers.
KITS = [pytest.param(kit.name, marks=pytest.mark.xdist_group(f"kit-{kit.name}")) for kit in LANGUAGES]

# The first test of a kit builds it: minutes for C++ or Java on a loaded two-core machine.
pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="session")
def built_kits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Manifest]]:
    """Each language's kit, initialised and built on first use."""
    return {}


def built(
    kits: dict[str, tuple[Path, Manifest]], factory: pytest.TempPathFactory, lang: str
) -> tuple[Path, Manifest]:
    if lang not in kits:
        readiness = check(next(known for known in LANGUAGES if known.name == lang))
        if not readiness.ready:
            if os.environ.get("CI"):  # .ci/run installs every toolchain: missing one there is a failure
                pytest.fail(f"no {lang} toolchain in CI: {readiness.detail}")
            pytest.skip(
                f"no {lang} toolchain here ({readiness.detail}): `kingmaker doctor` says what to install"
            )
        folder = init_kit(factory.mktemp("kits"), lang)
        fetch_packages(folder, lang)
        kits[lang] = (folder, build_kit(folder))
    return kits[lang]


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
    built_kits: dict[str, tuple[Path, Manifest]],
    tmp_path_factory: pytest.TempPathFactory,
    lang: str,
    game: str,
) -> None:
    folder, manifest = built(built_kits, tmp_path_factory, lang)
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
    built_kits: dict[str, tuple[Path, Manifest]],
    tmp_path_factory: pytest.TempPathFactory,
    lang: str,
) -> None:
    folder, manifest = built(built_kits, tmp_path_factory, lang)
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
}
"""The line each kit that prints one writes as a match ends (the Python kit's SDK and the Rust
kit behind the bridge print none)."""


@pytest.mark.parametrize("lang", [kit for kit in KITS if kit.values[0] in MATCH_OVER])
def test_a_kits_line_at_a_matchs_end_stays_in_that_matchs_log(
    kit_server: BackgroundServer,
    built_kits: dict[str, tuple[Path, Manifest]],
    tmp_path_factory: pytest.TempPathFactory,
    lang: str,
) -> None:
    """Issue 47: "ruby-bot: match 184 over" stood in match 185's log. A kit acknowledges each
    match's end once it has printed its line, and the server waits for that before it cuts the
    log of a process it keeps for the next match."""
    folder, manifest = built(built_kits, tmp_path_factory, lang)
    (first, first_log), (second, second_log) = two_matches_in_a_row(
        kit_server, bot_command(folder, manifest), str(folder)
    )
    line = MATCH_OVER[lang]
    assert line.format(first) in first_log, first_log
    assert line.format(second) in second_log, second_log
    assert line.format(first) not in second_log, second_log
