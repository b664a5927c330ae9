"""What some tests need beyond the Python packages, and how to get it, so that no run skips silently.

The README's test command installs every program in ``PROGRAMS``; a run without one says so in its
header, naming the tests that will skip and the command that installs it. Some tests need what no
command installs (root, or not root; cgroups the server may write): ``CONDITIONS`` says how to run
those. At the end of a run every skip is listed, grouped by reason, each with the command or
condition that would have run it (``explain``). A test checks that every skip in the tests is
explained here, so a new skip cannot be silent either.

This module is a pytest plugin (``tests/conftest.py`` loads it): the two hooks at the end.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from postgres_server import PostgresUnavailable, find_bindir

from support import REPO

APT = "sudo apt-get install -y"


@dataclass(frozen=True)
class Program:
    what: str
    tests: str
    """The tests that skip without it."""
    install: str
    present: Callable[[], bool]
    words: tuple[str, ...]
    """Words of the skip reasons it explains."""


@dataclass(frozen=True)
class Condition:
    how: str
    """How to run the tests it explains."""
    words: tuple[str, ...]


def _postgres_present() -> bool:
    try:
        find_bindir()
    except PostgresUnavailable:
        return False
    return True


NODE_MODULES = REPO / "sample_bots" / "node" / "node_modules"

PROGRAMS = (
    Program(
        "bubblewrap (the jail)", "tests/sandbox and every test of launched bots", f"{APT} bubblewrap",
        lambda: shutil.which("bwrap") is not None, ("bwrap is not installed",),
    ),
    Program(
        "PostgreSQL's server binaries", "the [postgresql] half of tests/ladder and tests/leagues",
        f"{APT} postgresql", _postgres_present, ("PostgreSQL",),
    ),
    Program(
        "Chromium and chromedriver", "tests/web", f"{APT} chromium chromium-driver",
        lambda: bool(shutil.which("chromium") and shutil.which("chromedriver")), ("chromium",),
    ),
    Program(
        "Node.js and npm", "the Node.js bot and buf in tests/protocol", f"{APT} nodejs npm",
        lambda: bool(shutil.which("node") and shutil.which("npm")), ("node is not installed",),
    ),
    Program(
        "the Node.js bot's packages (with buf)", "the Node.js bot and buf in tests/protocol",
        "(cd sample_bots/node && npm ci)", lambda: (NODE_MODULES / "@grpc" / "grpc-js").is_dir(),
        ("node_modules",),
    ),
    Program(
        "awk", "the bridged awk bot in tests/protocol", f"{APT} mawk",
        lambda: shutil.which("awk") is not None, ("awk",),
    ),
    Program(
        "PHP (php-cli) and Perl", "the PHP and Perl example bots in tests/protocol and tests/sandbox",
        f"{APT} php-cli", lambda: bool(shutil.which("php") and shutil.which("perl")),
        ("is not installed (scripts/install-system-deps installs it)",),
    ),
    Program(
        "taskset (util-linux)", "the default serve on one core in tests/server", f"{APT} util-linux",
        lambda: shutil.which("taskset") is not None, ("taskset",),
    ),
)  # fmt: skip

CONDITIONS = (
    Condition(
        "a jail that works here: bubblewrap installed, and unprivileged user namespaces allowed "
        "(sysctl kernel.unprivileged_userns_clone=1), or run as root",
        (
            "bubblewrap unusable",
            "bubblewrap does not work here",
            "builds run in the jail",
            "no jail here",
            "unpacked in the jail",
            "steps run in the jail",
        ),
    ),
    Condition(
        "the starter kit's toolchain: `kingmaker doctor` names the Debian packages of each language "
        "and prints the apt-get line that installs them (.ci/run installs them)",
        ("toolchain here",),
    ),
    Condition(
        "run as root, with a Python that other users may run (not one under a private /root): the "
        "bot's own user must be able to start it",
        ("Python open to", "closed to others"),
    ),
    Condition(
        "run as root (sudo .venv/bin/pytest tests/sandbox): only a root server gives each bot a user "
        "of its own",
        ("root server",),
    ),
    Condition("run as a user other than root (root may write anywhere)", ("(root)",)),
    Condition(
        "cgroups the server may write: run as root on a machine with cgroup v2 (or v1 controllers "
        "mounted), or in a delegated group",
        ("cgroup", "cpu controller"),
    ),
    Condition("uninstall the MySQL driver (its absence is what the test checks)", ("MySQL",)),
    Condition("a Linux with glibc (the server caps and trims glibc's memory arenas)", ("glibc only",)),
    Condition("Linux (the server schedules a bot's processes as SCHED_BATCH)", ("scheduling policies",)),
)


def explain(reason: str) -> str | None:
    """How to run the tests that skipped for ``reason``; None if nothing here explains it."""
    for program in PROGRAMS:
        if any(word in reason for word in program.words):
            return f"install {program.what}: {program.install}"
    for condition in CONDITIONS:
        if any(word in reason for word in condition.words):
            return condition.how
    return None


def missing_programs() -> list[Program]:
    return [program for program in PROGRAMS if not program.present()]


def pytest_report_header() -> list[str]:
    """At the start of a run: each program some tests need that this machine lacks, with the
    tests that will skip and the command that installs it."""
    missing = missing_programs()
    if not missing:
        return ["every program the tests use is installed (tests/prerequisites.py)"]
    return [f"MISSING {need.what}: {need.tests} will skip; install it: {need.install}" for need in missing]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """At the end of a run: every skip, grouped by reason, with what would have run it."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    terminalreporter.section("skipped, and how to run them", red=True, bold=True)
    for reason, count in Counter(skip_reason(report) for report in skipped).most_common():
        terminalreporter.line(f"{count} skipped: {reason}", red=True)
        terminalreporter.line(
            f"    to run them: {explain(reason) or 'unexplained: say how in tests/prerequisites.py'}"
        )


def skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    return str(report.longrepr)
