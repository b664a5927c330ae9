"""What keeping each step's stderr costs (issue 36, ``ladder.step_output``).

Three figures, each beside its reference measured in the same run, alternating:

- marking a step: the referee reads the size of the bot's stderr file when it sends a request and
  when the reply comes (two ``stat``). Reference: what it already does for every request, packing
  the observation of a Kingdoms request and digesting it.
- reading a match's steps once it is over (``read_steps``), 70 steps (a Kingdoms seat's share of
  a match) of one short line each, and of 1 MiB each. Reference: the seat's stderr log read as
  it already was (the last 64 KiB of the file, ``BotProcess.stderr_since``).
- the bytes stored per seat (the packed column), quiet and loud; reference: the bound, 16 KiB.

    .venv/bin/python bench/step_output.py [--quick]
"""

from __future__ import annotations

import base64
import os
import sys
import tempfile
import time
from pathlib import Path

from table import Row, Spread, alternate_with_load, print_rows

from kingmaker.games.registry import get_game
from kingmaker.ladder.step_output import SEAT_BYTES, pack_steps
from kingmaker.sdk.codec import codec_for, digest
from kingmaker.server.refereeing.step_stderr import read_steps

STEPS = 70
LOUD = 1024 * 1024


def _per_call(work: object, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        work()  # type: ignore[operator]
    return (time.perf_counter() - started) / calls * 1e6


def _stderr_file(folder: Path, name: str, per_step: int) -> tuple[Path, list[tuple[int, int, int]]]:
    path = folder / name
    marks = []
    with path.open("wb") as handle:
        for step in range(STEPS):
            start = handle.tell()
            line = f"step line {step} of request {1000 + step}\n".encode()
            # Incompressible text (base64 of random bytes): the worst case for the stored bytes.
            noise = base64.b64encode(os.urandom(per_step))[: max(0, per_step - len(line))]
            handle.write(noise + line)
            marks.append((2 * step, start, handle.tell()))
    return path, marks


def _last_64k(path: Path) -> None:
    with path.open("rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, end - 64 * 1024))
        handle.read(64 * 1024)


def main(runs: int) -> list[Row]:
    rows = []
    game = get_game("kingdoms")
    state = game.new(2, 7, {})
    codec = codec_for("kingdoms")
    with tempfile.TemporaryDirectory() as folder:
        quiet, quiet_marks = _stderr_file(Path(folder), "quiet", 0)
        loud, loud_marks = _stderr_file(Path(folder), "loud", LOUD)

        def mark() -> None:
            os.stat(quiet)
            os.stat(quiet)

        def observe() -> None:
            digest(codec.pack_observation(state.observation(0)))

        ours, theirs, load = alternate_with_load(
            lambda: _per_call(mark, 2000), lambda: _per_call(observe, 2000), runs
        )
        rows.append(
            Row(
                "steps",
                "marking a request (2 stat)",
                "µs",
                ours,
                "packing + digesting its observation",
                theirs,
                load=load,
            )
        )
        for name, path, marks in (
            ("one line a step", quiet, quiet_marks),
            ("1 MiB a step", loud, loud_marks),
        ):
            ours, theirs, load = alternate_with_load(
                lambda p=path, m=marks: _per_call(lambda: read_steps(p, m), 20),
                lambda p=path: _per_call(lambda: _last_64k(p), 20),
                runs,
            )
            rows.append(
                Row(
                    "steps",
                    f"reading {STEPS} steps, {name}",
                    "µs",
                    ours,
                    "the seat's 64 KiB log",
                    theirs,
                    load=load,
                )
            )
            stored = len(pack_steps(read_steps(path, marks)) or b"")
            bound = Spread.of([SEAT_BYTES])
            kept = Spread.of([stored])
            goal = "≤ the bound"
            rows.append(
                Row(
                    "steps",
                    f"stored per seat, {name}",
                    "bytes",
                    kept,
                    "the bound",
                    bound,
                    goal,
                    stored <= SEAT_BYTES,
                )
            )
    return rows


if __name__ == "__main__":
    print_rows(main(5 if "--quick" in sys.argv else 15), "per-step output")
