"""A new version's validation and A/B duel matches are played by processes kept warm from match
to match, as the ladder's are: before, every one of them launched the version again (a duel of 40
matches, 40 starts of a Python bot; of a JVM, minutes of its time)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

from kingmaker.ladder.bots import versions
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

RANDOM = "kingmaker.sample_bots.random_bot"
GREEDY = "kingmaker.sample_bots.kings_road.greedy_bot"


class Starts:
    """The processes started from now on whose command runs ``script`` (``python3 SCRIPT``),
    seen by polling /proc: in the jail or not, each launch of the bot is one such process."""

    def __init__(self, script: str) -> None:
        self.script = script.encode()
        self.seen: set[tuple[int, bytes]] = set()  # (pid, its start time): pids are reused
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def close(self) -> int:
        self._stop.set()
        self._thread.join()
        return len(self.seen)

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            for proc in Path("/proc").iterdir():
                if proc.name.isdigit():
                    try:
                        argv = (proc / "cmdline").read_bytes().split(b"\0")
                        if (
                            len(argv) > 1
                            and argv[0].endswith((b"python3", b"python"))
                            and argv[1] == self.script
                        ):
                            self.seen.add((int(proc.name), (proc / "stat").read_bytes().split()[21]))
                    except OSError:  # gone meanwhile
                        continue


@contextmanager
def counting(script: str) -> Iterator[Starts]:
    starts = Starts(script)
    try:
        yield starts
    finally:
        starts.close()


def bot_folder(folder: Path, module: str, script: str) -> Path:
    folder.mkdir(parents=True)
    (folder / script).write_text(f"import runpy\nrunpy.run_module({module!r}, run_name='__main__')\n")
    (folder / "kingmaker.toml").write_text(f'run = "python3 {script}"\ngames = ["kings_road"]\n')
    return folder


def submit(server: BackgroundServer, folder: Path) -> str:
    flags = ["--server", server.address, "--admin-token", server.admin_token]
    result = CliRunner().invoke(app, ["submit", str(folder), "--bot", "warm", "--ab", *flags])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_versions_trial_matches_reuse_its_warm_processes(
    server: BackgroundServer, tmp_path: Path, far_apart_ab_gate: None
) -> None:
    assert "warm version 1 is active" in submit(server, bot_folder(tmp_path / "v1", RANDOM, "first.py"))
    with counting("second.py") as starts:
        out = submit(server, bot_folder(tmp_path / "v2", GREEDY, "second.py"))
    assert "warm version 2 is active" in out
    record = versions.get_version(server.server.db, "warm", 2)
    validated = [match for match in record.validation if "ab" not in match]
    duel = record.validation[-1]["ab"]
    played = len(validated) + duel["matches"]
    assert len(validated) == 4 and duel["matches"] >= 10, record.validation  # (2 to 5 seats)
    # One process a seat it holds at once (the duel plays a seed's two matches side by side), not
    # one a match. Each match is a start of its own when no process is kept.
    assert 1 <= len(starts.seen) <= 4 < played, (len(starts.seen), played)
