"""Each kit's first build on a busy server: does every one finish under its limit (issue 47)?

The server is busy as a club's was: ``ladder.py``'s ladder running (Kingdoms, 2 seats, 10 remote
instant bots, 4 matches at once, in this process) beside ``SPINNERS`` processes spinning at the
default nice, a load of about 30 on two cores. Then, kit by kit (`kingmaker init`, its packages
fetched where it has any, as its README says), the build the server runs for a submission
(``build_folder``: the jail, the build's cgroup, its CPU weight and floor, its limits): first in a
server whose toolchain caches are empty, so a language with one (Go, Rust) prepares it first
(its kit built once, in the jail, under the same limit: ``toolchain_caches``), then a second
author's first build of the same kit, which starts from it. Each row: the build's CPU-seconds
(its processes' together, what the limit counts) and wall seconds, against the limit.

    .venv/bin/python bench/first_builds.py [--quick] [--without-caches] [go rust ...]

--quick: one run per kit (each takes minutes at load 30), else three. --without-caches: no cache
prepared or used (``KINGMAKER_TOOLCHAIN_CACHES=off``), every library compiled in every build:
the figures before the caches.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")  # (the server forks bots; see kits.py)

import asyncio
import logging
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from table import Row, Spread, print_rows

from ladder import CONCURRENCY, RemoteLadder

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "kits"))
from kits_support import fetch_packages, init_kit

SPINNERS = 28
KITS = ("cpp", "go", "java", "rust", "typescript", "python", "ruby")


@dataclass(frozen=True)
class Timed:
    """One build: its CPU-seconds and wall seconds (its command's, as its limit counts them)."""

    cpu: float
    wall: float
    ok: bool
    reason: str = ""


def build_row(kit: str, step: str, builds: list[Timed], limit: float, load: list[float]) -> Row:
    """A row of CPU-seconds against the limit; met when every build succeeded under it."""
    met = all(one.ok and one.cpu <= limit for one in builds)
    walls = Spread.of([one.wall for one in builds])
    what = f"{kit}: {step}, wall {walls.text(0)} s"
    return Row(
        "first builds",
        what,
        "CPU-s",
        Spread.of([one.cpu for one in builds]),
        goal=f"≤ {limit:g} CPU-s, built",
        met=met,
        load=Spread.of(load),
    )


def timed_build(folder: Path, store_root: Path) -> tuple[Timed, Timed | None]:
    """The server's build of ``folder``, its clock read from the build's own progress; and the
    preparation of its language's cache, when this build had it prepared."""
    from kingmaker.server.building.build_clock import BuildClock
    from kingmaker.server.building.build_store import BuildStore
    from kingmaker.server.building.builds import build_folder
    from kingmaker.server.building.toolchain_caches import caches_beside
    from kingmaker.server.jail.sandbox import SandboxPolicy

    clocks: list[BuildClock] = []

    def progress(_: object, clock: BuildClock | None) -> None:
        clocks.extend([clock] if clock is not None else [])

    caches = caches_beside(store_root)
    before = dict(caches.spent) if caches is not None else {}
    result = asyncio.run(build_folder(folder, BuildStore(store_root), SandboxPolicy(), progress=progress))
    if clocks:
        built = Timed(clocks[-1].cpu_seconds, clocks[-1].wall_seconds, result.ok, result.reason)
    else:  # (it never started: its archive refused, its jail failed)
        built = Timed(0.0, 0.0, False, result.reason)
    prepared = None
    if caches is not None:
        for language, spent in caches.spent.items():
            if before.get(language) is not spent:
                prepared = Timed(spent.cpu_seconds, spent.wall_seconds, True)
    return built, prepared


def spin(count: int) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(count)]


def main(quick: bool, without_caches: bool, kits: list[str]) -> None:
    from kingmaker.kits.languages import LANGUAGES, check
    from kingmaker.server.building.submission_limits import BuildLimits
    from kingmaker.server.building.toolchain_caches import ENVIRONMENT

    runs = 1 if quick else 3
    limit = BuildLimits().seconds
    ready = {language.name: check(language) for language in LANGUAGES}
    # SIGTERM ends the run through the finally below, so the spinners and the ladder's bots go too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ladder = RemoteLadder(10)
    spinners = spin(SPINNERS)
    rows: list[Row] = []
    logging.basicConfig(level=logging.WARNING)
    try:
        ladder.server.run(ladder.server.server.leagues.start("ladder", CONCURRENCY))
        time.sleep(60)  # (the load average climbs to the load)
        for kit in kits:
            if not ready[kit].ready:
                print(f"{kit}: skipped, no toolchain here ({ready[kit].detail})")
                continue
            built: list[Timed] = []
            prepared: list[Timed] = []
            loads: list[float] = []
            for _ in range(runs):
                with tempfile.TemporaryDirectory(prefix=f"km-first-{kit}-") as root:
                    # (empty: prepared anew)
                    os.environ[ENVIRONMENT] = "off" if without_caches else str(Path(root) / "caches")
                    loads.append(os.getloadavg()[0])
                    folder = init_kit(Path(tempfile.mkdtemp(dir=root)), kit)
                    fetch_packages(folder, kit)
                    timed, preparation = timed_build(folder, Path(root) / "builds")
                    built.append(timed)
                    prepared.extend([preparation] if preparation is not None else [])
                    print(
                        f"{kit}: {timed}, cache prepared by {preparation}, load {loads[-1]:.1f}", flush=True
                    )
            if prepared:
                rows.append(
                    build_row(kit, "its toolchain cache prepared (once per server)", prepared, limit, loads)
                )
            step = "first build, from the prepared cache" if prepared else "first build"
            step += ", caches off" if without_caches else ""
            rows.append(build_row(kit, step, built, limit, loads))
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
        ladder.close()
    print_rows(rows, f"each kit's first build beside a ladder and {SPINNERS} spinning processes")


if __name__ == "__main__":
    chosen = [arg for arg in sys.argv[1:] if not arg.startswith("-")]
    main("--quick" in sys.argv, "--without-caches" in sys.argv, chosen or list(KITS))
