"""The starter kits: per language, the time from `kingmaker init` to a first finished match, the
kit's lines of code, and the decisions per second of its random bot beside the Python SDK's.

    python bench/kits.py                     # every language this machine can build
    python bench/kits.py cpp rust --runs 1 --matches 3

From `init` to a first match is what an author waits for: init, fetching the kit's packages
where it has any (`npm ci`, from the registry), the manifest's build, and one Kingdoms match
against the random bot as a managed bot in the jail. Decisions per second: the kit's random bot
plays the Python SDK's random bot in Kingdoms, seats swapped from match to match, and each bot's
decisions are divided by the time the server clocked it (request sent to reply received:
transport and decoding included, the server's own lag left out). Lines of code: the kit's own files (not
its README, lock file or manifest; not generated code).
"""

from __future__ import annotations

import os

# This process runs the server, which forks bots: gRPC's fork handlers must be off before grpc
# is imported (as kingmaker.server does), or a forked child can die of SIGSEGV before its exec.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import sys
import tempfile
import time
from pathlib import Path

from table import Row, Spread, print_rows

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "kits"))
from kits_support import bot_command, build_kit, fetch_packages, init_kit, played_cleanly, run_match

from kingmaker.kits.languages import LANGUAGES, check, kit_folder
from kingmaker.kits.manifest import MANIFEST
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.v1 import admin_pb2

RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
NOT_CODE = {"README.md", "package-lock.json", MANIFEST, ".gitignore"}


def lines_of_code(lang: str) -> int:
    """Non-blank lines of the kit's own files."""
    total = 0
    for path in kit_folder(lang).rglob("*"):
        if path.is_file() and path.name not in NOT_CODE and "__pycache__" not in path.parts:
            total += sum(1 for line in path.read_text().splitlines() if line.strip())
    return total


def clean_match(server: BackgroundServer, seats: list[admin_pb2.MatchSeat]) -> admin_pb2.MatchRecord:
    """A Kingdoms match in which both bots played every decision themselves."""
    record = run_match(server, "kingdoms", seats)
    faults = played_cleanly(record, 0) + played_cleanly(record, 1)
    assert not faults, faults
    return record


def first_match_seconds(server: BackgroundServer, lang: str, parent: Path) -> tuple[float, Path, list[str]]:
    """Seconds from `kingmaker init` to the end of a first match; the kit's folder and command."""
    started = time.perf_counter()
    folder = init_kit(parent, lang)
    fetch_packages(folder, lang)
    manifest = build_kit(folder)
    command = bot_command(folder, manifest)
    seats = [
        admin_pb2.MatchSeat(bot="kit", command=command, working_directory=str(folder)),
        admin_pb2.MatchSeat(bot="random", command=RANDOM),
    ]
    clean_match(server, seats)
    return time.perf_counter() - started, folder, command


def decisions_per_second(
    server: BackgroundServer, command: list[str], folder: Path, first: bool
) -> tuple[float, float]:
    """Decisions per second of the kit's bot and of the Python SDK's random bot, playing each other
    in one Kingdoms match (the kit's bot first or second): each bot's decisions over the time the
    server clocked it."""
    kit = admin_pb2.MatchSeat(bot="kit", command=command, working_directory=str(folder))
    sdk = admin_pb2.MatchSeat(bot="sdk", command=RANDOM)
    seats = [kit, sdk] if first else [sdk, kit]
    record = clean_match(server, seats)
    rates = [1000 * seat.decisions / seat.total_ms for seat in record.seat_times]
    return (rates[0], rates[1]) if first else (rates[1], rates[0])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "languages", nargs="*", help="Kits to measure (default: every one this machine can build)."
    )
    parser.add_argument("--runs", type=int, default=3, help="Inits and builds per kit (each takes minutes).")
    parser.add_argument("--matches", type=int, default=5, help="Throughput matches of each bot, alternated.")
    args = parser.parse_args()
    chosen = [language for language in LANGUAGES if not args.languages or language.name in args.languages]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="kingmaker-bench-kits-") as scratch:
        os.environ["KINGMAKER_HOME"] = str(Path(scratch) / "home")
        config = ServerConfig(
            address="127.0.0.1:0", time_control=TimeControl(decision_ms=2000), connect_timeout=60
        )
        server = BackgroundServer(config)
        try:
            for language in chosen:
                readiness = check(language)
                if not readiness.ready:
                    print(f"skipping {language.title}: {readiness.detail}", file=sys.stderr)
                    continue
                waits = []
                for run in range(args.runs):
                    seconds, folder, command = first_match_seconds(
                        server, language.name, Path(scratch) / f"{language.name}-{run}"
                    )
                    waits.append(seconds)
                rows.append(Row(language.title, "init to a first finished match", "s", Spread.of(waits)))
                kit_rates, sdk_rates = [], []
                for match in range(args.matches):
                    kit_rate, sdk_rate = decisions_per_second(server, command, folder, first=match % 2 == 0)
                    kit_rates.append(kit_rate)
                    sdk_rates.append(sdk_rate)
                what = "random bot, 2 seats of Kingdoms"
                reference = ("Python SDK random bot", Spread.of(sdk_rates))
                rows.append(Row(language.title, what, "decisions/s", Spread.of(kit_rates), *reference))
                loc = float(lines_of_code(language.name))
                rows.append(Row(language.title, "the kit's lines of code", "lines", Spread(loc, loc, loc)))
        finally:
            server.stop()
    print_rows(rows, f"Starter kits ({args.runs} builds, {args.matches} matches each; medians with min-max)")


if __name__ == "__main__":
    main()
