"""``kingmaker play`` in a terminal, end to end: the command runs as its own process against a real
server, and a script types into its stdin as a person would: for each game a full match, each
action a legal one chosen at random from the numbered list the command printed, ends with its
result stored; a word or a number that is no action is refused with the reason and asked again;
closing stdin leaves the table and loses the seat."""

from __future__ import annotations

import os
import queue
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator

import pytest
from play_support import WAIT, Table, stored

from kingmaker.games.registry import game_names

PROMPT = re.compile(r"^type 0 to (\d+):$")


class Terminal:
    """``kingmaker play`` running, its output read line by line as it comes."""

    def __init__(self, table: Table, game: str, *bots: str) -> None:
        args = [sys.executable, "-m", "kingmaker", "play", game, "--server", table.server.address]
        args += ["--token", table.ann, "--seed", "11", *(f"--bot={bot}" for bot in bots)]
        # stderr to a file, not a pipe nobody reads (a full pipe would stop the command); with
        # faulthandler on, so a command that does not exit can be made to show where it is stuck.
        self._stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115  # closed by stop()
        self.process = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True,
            env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        )  # fmt: skip
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_line(self) -> str | None:
        line = self.lines.get(timeout=WAIT)
        if line is not None:
            self.seen.append(line)
        return line

    def until(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """The next line that matches (None: the command ended first)."""
        while (line := self.next_line()) is not None:
            if found := pattern.match(line):
                return found
        return None

    def type(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text + "\n")
        self.process.stdin.flush()

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()

    def exit_code(self) -> int:
        """The command's exit status once it ends; a command still running after ``WAIT`` fails
        the test with every thread's stack (SIGABRT: faulthandler prints them to stderr)."""
        try:
            return self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)
            self.process.wait(timeout=WAIT)
            pytest.fail(f"kingmaker play did not exit; where it was:\n{self.stderr()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=WAIT)
        self._stderr.close()


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    try:
        yield started
    finally:
        for terminal in started:
            terminal.stop()


@pytest.mark.parametrize("game", game_names())
def test_a_full_match_typed_in_the_terminal(table: Table, terminals: list[Terminal], game: str) -> None:
    terminal = Terminal(table, game, "rando", "randa")
    terminals.append(terminal)
    rng = random.Random(game)
    first = True
    while (prompt := terminal.until(PROMPT)) is not None:
        count = int(prompt[1]) + 1
        if first:  # a word, then a number past the list: each refused, and asked again
            first = False
            terminal.type("castle")
            assert terminal.next_line() == "refused: 'castle' is not a number: type the number of an action"
            assert terminal.next_line() == prompt[0]
            terminal.type(str(count))
            refusal = f"refused: action {count} is not one of the {count} legal actions"
            assert terminal.next_line() == refusal
            assert terminal.next_line() == prompt[0]
        terminal.type(str(rng.randrange(count)))
    assert terminal.exit_code() == 0
    output = "\n".join(terminal.seen)
    assert "the match is over (finished for you):" in output
    assert re.search(r"^  seat 0 person:ann \(you\): rank \d, score -?\d+ \(finished\)$", output, re.M)
    # the other seats' moves, shown as they were made, not only at the person's turn
    assert re.search(r"^move \d+: .*rando \(seat 1\)", output, re.M)
    found = re.search(r"^stored as match (\d+):", output, re.M)
    assert found is not None
    match = stored(table, found[1])
    assert not match.rated and match.status_reason.startswith("with people: person:ann")
    assert match.reasons == ["finished"] * 3


def test_closing_stdin_leaves_the_table_and_loses_the_seat(table: Table, terminals: list[Terminal]) -> None:
    terminal = Terminal(table, "kingdoms", "rando", "randa")
    terminals.append(terminal)
    started = terminal.until(re.compile(r"^kingdoms match (\d+);"))
    assert started is not None
    assert terminal.until(PROMPT) is not None
    assert terminal.process.stdin is not None
    terminal.process.stdin.close()
    assert terminal.until(re.compile(r"^stdin closed: you leave the table")) is not None
    assert terminal.exit_code() == 1
    match = stored(table, started[1])
    assert match.reasons == ["disconnected", "finished", "finished"]


def test_a_table_the_server_refuses_fails_with_its_reason(table: Table, terminals: list[Terminal]) -> None:
    terminal = Terminal(table, "chess", "rando")
    terminals.append(terminal)
    deadline = time.monotonic() + WAIT
    assert terminal.exit_code() == 1 and time.monotonic() < deadline
    error = terminal.stderr().strip()
    assert error.startswith("error:") and "chess" in error and len(error.splitlines()) == 1
