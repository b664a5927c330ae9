"""Each resource limit stops the hostile bot that runs into it, with or without the jail, and the
test says which limit it was (the error the bot saw, or the signal that killed it)."""

from __future__ import annotations

import re
import signal

import pytest
from sandbox_helpers import hostile, run_to_end

from kingmaker.server.jail import launcher
from kingmaker.server.jail.cgroups import cgroup_support
from kingmaker.server.jail.launcher import Limits, SandboxPolicy
from kingmaker.server.jail.sandbox import MiB, running_as_root

from support import PYTHON


def test_a_ten_gib_allocation_fails_under_the_default_address_space_limit(isolate: bool) -> None:
    finished = run_to_end(hostile("memory_bot.py"), SandboxPolicy(isolate=isolate))
    assert finished.jailed is isolate
    assert finished.outcomes == ["MemoryError"], "RLIMIT_AS (2 GiB by default) refused the allocation"
    assert finished.returncode == 0


def test_a_cpu_burner_is_killed_by_sigxcpu_at_its_cpu_time_limit(isolate: bool) -> None:
    finished = run_to_end(hostile("cpu_bot.py", 30), SandboxPolicy(Limits(cpu_seconds=1), isolate=isolate))
    assert finished.outcomes == ["burning CPU"], "it was killed before its own 30 s bound"
    assert finished.exit_signal is signal.SIGXCPU, "RLIMIT_CPU's soft limit killed it"


def test_a_huge_file_stops_at_the_file_size_limit(isolate: bool) -> None:
    policy = SandboxPolicy(Limits(file_bytes=4 * MiB), isolate=isolate)
    finished = run_to_end(hostile("huge_file_bot.py", 64), policy)
    assert finished.outcomes == ["wrote 4 MiB, then EFBIG"], "RLIMIT_FSIZE refused the fifth MiB"


def test_opening_files_without_end_stops_at_the_open_files_limit(isolate: bool) -> None:
    finished = run_to_end(hostile("open_files_bot.py"), SandboxPolicy(Limits(open_files=64), isolate=isolate))
    [outcome] = finished.outcomes
    match = re.fullmatch(r"opened (\d+) files, then EMFILE", outcome)
    assert match is not None, f"RLIMIT_NOFILE should have stopped it: {outcome}"
    assert int(match.group(1)) < 64


def test_a_fork_bomb_stops_at_the_process_limit(isolate: bool) -> None:
    own_user = launcher._others_can_run([PYTHON], None)
    if running_as_root() and not isolate and not own_user and "pids" not in cgroup_support().controllers:
        pytest.skip("a root server's bot outside the jail keeps root when its program is closed to others")
    policy = SandboxPolicy(Limits(processes=20), isolate=isolate)
    finished = run_to_end(hostile("fork_bomb_bot.py", 300), policy)
    [outcome] = finished.outcomes
    match = re.fullmatch(r"fork failed after (\d+) children: EAGAIN", outcome)
    assert match is not None, f"RLIMIT_NPROC or pids.max should have stopped it: {outcome}"
    if finished.limit_events["pids_max"]:
        # A bot that kept root (its program closed to other users): the pids cgroup stopped it,
        # whose pids.max counts the jail's own two processes too.
        assert int(match.group(1)) == Limits(processes=20).bot_processes - 1
    elif running_as_root():
        # RLIMIT_NPROC for a uid of its own: the bot itself plus 19 children make the 20 allowed.
        assert int(match.group(1)) == 19
    else:
        assert int(match.group(1)) <= 20
