"""A ladder beside five CPU-heavy builds: does it keep its pace while authors' code builds?

The ladder is ``ladder.py``'s: Kingdoms, 2 seats, 10 remote instant bots, 4 matches at once, in
the server process. The builds are five jailed builds at once, each a shell spinning on a core
for the whole window, started as the server starts them (``build_folder``: the launcher, the
build's cgroup and limits), in a process of their own. Windows alternate: the ladder alone, the
ladder beside five builds at the builds' CPU weight (``BUILD_LIMITS.cpu_weight``), and, to show
what the weight does, beside five builds at a bot's default weight. The figure is matches per
minute beside builds over matches per minute alone; the goal is >= 0.8 (issue 32: 0.33 before).

    python bench/builds_beside_ladder.py [--quick]
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from table import Row, Spread, print_rows

from ladder import CONCURRENCY, WARM_UP_S, RemoteLadder

BUILDS = 5


def burn(seconds: float, weight: int) -> None:
    """Run BUILDS jailed builds at once, each spinning for ``seconds`` (in this process)."""
    from kingmaker.server.building.build_store import BuildStore
    from kingmaker.server.building.builds import build_folder
    from kingmaker.server.building.submission_limits import BUILD_LIMITS, BuildLimits
    from kingmaker.server.jail.sandbox import SandboxPolicy

    limits = BuildLimits(seconds=seconds + 120, limits=dataclasses.replace(BUILD_LIMITS, cpu_weight=weight))
    with tempfile.TemporaryDirectory(prefix="km-burn-") as root:
        folders = []
        for number in range(BUILDS):
            folder = Path(root) / f"bot{number}"
            folder.mkdir()
            spin = f"timeout {seconds:.0f} sh -c 'while :; do :; done'; touch bot"
            (folder / "kingmaker.toml").write_text(f'run = "./bot"\nbuild = "{spin}"\n')
            folders.append(folder)
        store = BuildStore(Path(root) / "builds")

        async def all_at_once() -> None:
            built = await asyncio.gather(
                *(build_folder(folder, store, SandboxPolicy(), limits, Path(root)) for folder in folders)
            )
            failed = [result.reason for result in built if not result.ok]
            assert not failed, [(result.reason, result.log[-500:]) for result in built if not result.ok][:1]

        asyncio.run(all_at_once())


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def main(quick: bool) -> None:
    from kingmaker.server.building.submission_limits import BUILD_LIMITS

    seconds, runs = (15.0, 3) if quick else (30.0, 5)
    ladder = RemoteLadder(10)
    alone: list[float] = []
    beside: dict[int, list[float]] = {BUILD_LIMITS.cpu_weight: [], 0: []}
    loads: list[str] = []
    try:
        for _ in range(runs):
            alone.append(ladder.matches_per_minute(seconds))
            for weight, found in beside.items():
                burner = subprocess.Popen(
                    [sys.executable, __file__, "--burn", str(seconds + WARM_UP_S + 5), str(weight)]
                )
                time.sleep(3)  # the builds are under way
                found.append(ladder.matches_per_minute(seconds))
                loads.append(load())
                assert burner.wait(timeout=seconds + 300) == 0, "the builds failed"
    finally:
        ladder.close()
    reference = Spread.of(alone)
    rows = []
    for weight, found in beside.items():
        value = Spread.of(found)
        named = f"weight {weight} (builds')" if weight else "a bot's default weight (100)"
        what = f"ladder of 10 remote bots, {CONCURRENCY} at once, beside {BUILDS} spinning builds at {named}"
        met = value.median >= 0.8 * reference.median if weight else None
        rows.append(
            Row("builds", what, "matches/min", value, "the ladder alone", reference, goal="≥ 0.8x", met=met)
        )
    ratios = [ours / theirs for ours, theirs in zip(beside[BUILD_LIMITS.cpu_weight], alone, strict=True)]
    print_rows(rows, "a ladder beside builds")
    print(f"ratio per window at the builds' weight: {', '.join(f'{ratio:.2f}' for ratio in ratios)}")
    print(f"load average (1/5/15 min) at the end of each window beside builds: {'; '.join(loads)}")


if __name__ == "__main__":
    if "--burn" in sys.argv:
        at = sys.argv.index("--burn")
        burn(float(sys.argv[at + 1]), int(sys.argv[at + 2]))
    else:
        main("--quick" in sys.argv)
