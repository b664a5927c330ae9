"""What the JSON-lines bridge costs a managed bot per decision, beside a gRPC bot in the same match.

    python bench/bridge.py            # 7 matches
    python bench/bridge.py --matches 3

A C bot built by ``make`` in the jail speaks JSON lines (it answers every request with legal
action 0, as soon as it reads it); the server launches it behind ``kingmaker bridge``, jailed, as it
does any ``protocol = "json-lines"`` version. Its opponent in every match is the instant gRPC bot
(``sample_bots/instant_bot.py``: action 0 at once, plain grpcio), launched the same way. Both seats'
think time is the referee's own measure, from sending a request to receiving its reply; the
figure is each match's median per seat, and the table gives the median (min-max) over matches,
the seats swapped every other match.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

from table import Row, Spread, print_rows

from kingmaker.server.building.builds import build_folder
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant

C_BOT = r"""
#include <stdio.h>
#include <string.h>
int main(void) {
    static char line[1 << 22];
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"actionRequest\"")) {
            fputs("{\"legalActionIndex\": 0}\n", stdout);
            fflush(stdout);
        }
    }
    return 0;
}
"""
INSTANT = (sys.executable, "-m", "kingmaker.sample_bots.instant_bot")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--matches", type=int, default=7)
    parser.add_argument("--game", default="kingdoms")
    args = parser.parse_args()
    if not bubblewrap().usable:
        raise SystemExit(f"no jail to measure here: {bubblewrap().reason}")
    with tempfile.TemporaryDirectory(prefix="kingmaker-bench-") as home:
        os.environ["KINGMAKER_HOME"] = home
        bridged, grpc_bot = asyncio.run(measure(Path(home), args.game, args.matches))
    row = Row(
        "bridge", f"think time per decision, {args.game}: C bot behind the JSON-lines bridge", "ms",
        Spread.of(bridged), "instant gRPC bot", Spread.of(grpc_bot),
    )  # fmt: skip
    print_rows([row], "The JSON-lines bridge's cost per decision (jailed, both seats in the same matches)")


async def measure(home: Path, game: str, matches: int) -> tuple[list[float], list[float]]:
    from kingmaker.server.app import KingmakerServer, ServerConfig

    folder = home / "cbot"
    folder.mkdir()
    (folder / "bot.c").write_text(C_BOT)
    (folder / "Makefile").write_text("bot: bot.c\n\tcc -O2 -o bot bot.c\n")
    (folder / "kingmaker.toml").write_text('run = "./bot"\nbuild = "make"\nprotocol = "json-lines"\n')
    server = KingmakerServer(ServerConfig(address="127.0.0.1:0", resume_leagues=False))
    await server.start()
    try:
        assert server.roster is not None and server.roster.sandbox is not None
        built = await build_folder(folder, server.builds, server.roster.sandbox)
        if not built.ok or built.manifest is None:
            raise SystemExit(f"the C bot did not build: {built.reason}\n{built.log}")
        bridged = Entrant("bridged", 1, built.manifest.run, None, 1, "json-lines", built.build_hash)
        instant = Entrant("instant", 2, INSTANT)
        ours: list[float] = []
        theirs: list[float] = []
        for index in range(matches):
            seats = [bridged, instant] if index % 2 == 0 else [instant, bridged]
            report = await play_match(
                server.roster, game, seats, 100 + index, {}, TimeControl(), f"bench-{index}"
            )
            mine = seats.index(bridged)
            ours.append(statistics.median(report.think_ms[mine]))
            theirs.append(statistics.median(report.think_ms[1 - mine]))
        return ours, theirs
    finally:
        await server.stop()


if __name__ == "__main__":
    main()
