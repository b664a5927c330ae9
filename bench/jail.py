"""What the jail costs a managed bot's start: launched jailed (bubblewrap, a user of its own,
cgroups, tmpfs folder) against the same command launched unjailed, in turn.

    python bench/jail.py            # 9 runs of each
    python bench/jail.py --runs 3

Two commands: a bare interpreter (``python -I -S -c pass``: the jail's own cost shows) and a
Python bot's imports (grpc and the SDK, most of a real bot's start). The figure is spawn to exit;
the referee keeps bot processes across matches, so it is paid once per bot per league.

Then a built bot's start (a bare interpreter running ``/bot/bot.py``), jailed both ways: as a
version plays, its built folder copied into its run folder and the copy shown at ``/bot`` (so
its mountinfo names no host path), against the same folder bound where it is (as before the
copy): the copy's cost, for a small folder and for one of 1,000 files, 64 MiB.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from table import Row, alternate, print_rows

from kingmaker.server.jail.cgroups import cgroup_support
from kingmaker.server.jail.launcher import BotProcess, SandboxPolicy
from kingmaker.server.jail.run_folder import make_run_folder
from kingmaker.server.jail.sandbox import MiB, bubblewrap

BARE_BUILT = (sys.executable, "-I", "-S", "/bot/bot.py")
COMMANDS = {
    "bare interpreter": (sys.executable, "-I", "-S", "-c", "pass"),
    "bot imports (grpc, sdk)": (sys.executable, "-c", "import grpc, kingmaker.sdk"),
}


def launch_ms(command: Sequence[str], policy: SandboxPolicy, temp_root: Path | None = None) -> float:
    async def once() -> float:
        started = time.perf_counter()
        process = await BotProcess.start(command, {}, sandbox=policy, temp_root=temp_root)
        await process.exited(within=60)
        took = time.perf_counter() - started
        await process.stop(grace=0)
        process.discard_logs()
        if process.returncode != 0:
            raise SystemExit(f"{command} failed: {process.stderr_tail()}")
        return took * 1000

    return asyncio.run(once())


def built_folder(root: Path, files: int, total_bytes: int) -> Path:
    """A built folder in a store of ``root``: ``bot.py`` and ``files`` files of ``total_bytes``."""
    folder = root / "builds" / ("0" * 64)
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("pass\n")
    for index in range(files):
        (folder / "lib" / f"part{index}.bin").write_bytes(os.urandom(total_bytes // max(files, 1)))
    for path in (root, root / "builds", folder, folder / "lib"):
        path.chmod(0o755)
    return folder


def built_rows(runs: int) -> list[Row]:
    rows = []
    run_folder = make_run_folder()  # (where the server keeps bots' folders: the copies go there)
    try:
        with tempfile.TemporaryDirectory(prefix="kingmaker-bench-jail-") as root:
            for what, files, size in (("3 files", 2, 4096), ("1,000 files, 64 MiB", 1000, 64 * MiB)):
                folder = built_folder(Path(root) / what.split()[0], files, size)
                copied = SandboxPolicy(bot_folder=str(folder))
                bound = SandboxPolicy(read_only_paths=(str(folder),))
                ours, reference = alternate(
                    lambda copied=copied: launch_ms(BARE_BUILT, copied, run_folder),
                    lambda bound=bound, folder=folder: launch_ms(
                        (sys.executable, "-I", "-S", str(folder / "bot.py")), bound, run_folder
                    ),
                    runs,
                )
                rows.append(
                    Row("jail", f"built bot's start, folder copied: {what}", "ms", ours, "bound", reference)
                )
    finally:
        shutil.rmtree(run_folder, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    if not bubblewrap().usable:
        raise SystemExit(f"no jail to measure here: {bubblewrap().reason}")
    jailed, plain = SandboxPolicy(), SandboxPolicy(isolate=False)
    rows = []
    for what, command in COMMANDS.items():
        ours, reference = alternate(
            lambda command=command: launch_ms(command, jailed),
            lambda command=command: launch_ms(command, plain),
            args.runs,
        )
        rows.append(Row("jail", f"start to exit, jailed: {what}", "ms", ours, "unjailed", reference))
    rows += built_rows(args.runs)
    print_rows(rows, f"The jail's cost at start ({cgroup_support().describe()})")


if __name__ == "__main__":
    main()
