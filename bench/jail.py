"""What the jail costs a managed bot's start: launched jailed (bubblewrap, a user of its own,
cgroups, tmpfs folder) against the same command launched unjailed, in turn.

    python bench/jail.py            # 9 runs of each
    python bench/jail.py --runs 3

Two commands: a bare interpreter (``python -I -S -c pass``: the jail's own cost shows) and a
Python bot's imports (grpc and the SDK, most of a real bot's start). The figure is spawn to exit;
the referee keeps bot processes across matches, so it is paid once per bot per league.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence

from table import Row, alternate, print_rows

from kingmaker.server.jail.cgroups import cgroup_support
from kingmaker.server.jail.launcher import BotProcess, SandboxPolicy
from kingmaker.server.jail.sandbox import bubblewrap

COMMANDS = {
    "bare interpreter": (sys.executable, "-I", "-S", "-c", "pass"),
    "bot imports (grpc, sdk)": (sys.executable, "-c", "import grpc, kingmaker.sdk"),
}


def launch_ms(command: Sequence[str], policy: SandboxPolicy) -> float:
    async def once() -> float:
        started = time.perf_counter()
        process = await BotProcess.start(command, {}, sandbox=policy)
        await process.exited(within=60)
        took = time.perf_counter() - started
        await process.stop(grace=0)
        process.discard_logs()
        if process.returncode != 0:
            raise SystemExit(f"{command} failed: {process.stderr_tail()}")
        return took * 1000

    return asyncio.run(once())


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
    print_rows(rows, f"The jail's cost at start ({cgroup_support().describe()})")


if __name__ == "__main__":
    main()
