"""The benchmark suite: every section, one table, one JSON file.

    .venv/bin/python bench/suite.py                 # everything (several minutes)
    .venv/bin/python bench/suite.py --quick         # fewer runs, smaller sizes
    .venv/bin/python bench/suite.py clock engines   # only these sections

Each section is a module in bench/ with ``rows(quick: bool) -> list[table.Row]``; it measures each
figure beside its reference in the same run, alternating (see ``table.alternate``).
"""

from __future__ import annotations

import os

# Bots are forked from this process, which also runs gRPC; see kingmaker/server/__init__.py.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from table import Row, print_rows, save_rows

SECTIONS: dict[str, str] = {
    # section name: the bench/ module that measures it
    "engines": "engines",
    "envs": "envs",
    "referee": "referee",
    "league": "league",
    "claims": "claims",
    "ladder": "ladder",
    "clock": "clock",
    "standings": "standings",
    "chaos": "chaos",
    "web": "web",
    "cluster": "cluster",
    "storage": "storage",
    "memory": "memory",
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sections", nargs="*", help=f"some of: {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller sizes")
    parser.add_argument("--json", type=Path, default=Path("bench-results.json"), help="where to save")
    args = parser.parse_args()
    unknown = [name for name in args.sections if name not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(SECTIONS)}")
    rows: list[Row] = []
    started = time.perf_counter()
    for name in args.sections or list(SECTIONS):
        module = importlib.import_module(SECTIONS[name])
        rows.extend(module.rows(args.quick))
    title = f"kingmaker bench ({'quick' if args.quick else 'full'}, {time.perf_counter() - started:.0f} s)"
    print_rows(rows, title)
    save_rows(rows, args.json)
    print(f"saved {len(rows)} rows to {args.json}")


if __name__ == "__main__":
    main()
