"""A new version's validation and A/B duel matches are played by processes kept warm from match
to match, as the ladder's are: before, every one of them launched the version again (a duel of 40
matches, 40 starts of a Python bot; of a JVM, minutes of its time), and validation's random bots
too, one start a seat a match."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from proc_stat import PARENT, START_TIME, stat_field
from submission_bots import sample_bot
from typer.testing import CliRunner

from kingmaker.ladder.bots import versions
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

RANDOM = "kingmaker.sample_bots.random_bot"
GREEDY = "kingmaker.sample_bots.kings_road.greedy_bot"


class Starts:
    """The processes started from now on that Python runs with these ``arguments`` (a script, or
    ``-m MODULE``), seen by polling /proc: in the jail or not, each launch is one such process.
    Those running already (kept warm from before) are not counted, nor those that are not this
    test process's descendants: /proc shows the whole machine, and pytest-xdist's other workers
    start the same sample bots for their own tests (CI counted 8 random-bot starts here, 3 of
    them another test's)."""

    def __init__(self, *arguments: str) -> None:
        self.arguments = [argument.encode() for argument in arguments]
        self.ancestor = os.getpid()
        self.running = self._scan()
        self.seen: set[tuple[int, str]] = set()  # (pid, its start time): pids are reused
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def count(self) -> int:
        return len(self.seen - self.running)

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            self.seen |= self._scan()

    def _scan(self) -> set[tuple[int, str]]:
        found = set()
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    argv = (proc / "cmdline").read_bytes().split(b"\0")
                    python = argv[0].endswith((b"python3", b"python"))
                    ours = argv[1 : 1 + len(self.arguments)] == self.arguments
                    if python and ours and self._descends_from_us(int(proc.name)):
                        found.add((int(proc.name), stat_field(int(proc.name), START_TIME)))
                except OSError:  # gone meanwhile
                    continue
        return found

    def _descends_from_us(self, pid: int) -> bool:
        while pid > 1:
            if pid == self.ancestor:
                return True
            pid = int(stat_field(pid, PARENT))
        return False


@contextmanager
def counting(*arguments: str) -> Iterator[Starts]:
    starts = Starts(*arguments)
    try:
        yield starts
    finally:
        starts.close()


def bot_folder(folder: Path, module: str, script: str) -> Path:
    return sample_bot(folder, module, "kings_road", script)


def submit(server: BackgroundServer, folder: Path) -> str:
    flags = ["--server", server.address, "--admin-token", server.admin_token]
    result = CliRunner().invoke(app, ["submit", str(folder), "--bot", "warm", "--ab", *flags])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_versions_trial_matches_reuse_its_warm_processes(
    server: BackgroundServer, tmp_path: Path, far_apart_ab_gate: None
) -> None:
    assert "warm version 1 is active" in submit(server, bot_folder(tmp_path / "v1", RANDOM, "first.py"))
    with counting("second.py") as starts, counting("-m", RANDOM) as random_starts:
        out = submit(server, bot_folder(tmp_path / "v2", GREEDY, "second.py"))
    assert "warm version 2 is active" in out
    record = versions.get_version(server.server.db, "warm", 2)
    validated = [match for match in record.validation if "ab" not in match]
    duel = record.validation[-1]["ab"]
    played = len(validated) + duel["matches"]
    assert len(validated) == 4 and duel["matches"] >= 10, record.validation  # (2 to 5 seats)
    # One process a seat it holds at once (the duel plays a seed's two matches side by side), not
    # one a match. Each match is a start of its own when no process is kept.
    assert 1 <= starts.count() <= 4 < played, (starts.count(), played)
    # Validation's random bots: each seat's (random-0 to random-4) kept under a name of its own,
    # so at most one start each (none while version 1's are still kept); before, one start a seat
    # a match.
    random_seats = sum(match["players"] - 1 for match in validated)
    assert random_starts.count() <= 5 < random_seats, (random_starts.count(), random_seats)
