"""No test skips silently: every skip in the tests is explained by ``prerequisites`` (a program the
README's test command installs, or a condition and how to meet it), and a run reports what it
lacks at its start and each skip with its fix at its end."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import prerequisites

from support import REPO

TESTS = REPO / "tests"
SKIPS = {"skip", "skipif", "importorskip"}


def skip_reasons() -> Iterator[tuple[str, str]]:
    """(where, the source of its reason) for every pytest.skip / mark.skipif in the tests."""
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in SKIPS or "pytest" not in ast.unparse(node.func):
                continue
            reason = next((word.value for word in node.keywords if word.arg == "reason"), None)
            if reason is None and node.args and node.func.attr != "skipif":
                reason = node.args[0]
            where = f"{path.relative_to(REPO)}:{node.lineno}"
            yield where, ast.unparse(reason) if reason is not None else ""


def test_every_skip_in_the_tests_is_explained() -> None:
    found = list(skip_reasons())
    assert len(found) >= 15, "the scan finds the skips"
    unexplained = [f"{where}: {reason}" for where, reason in found if prerequisites.explain(reason) is None]
    assert unexplained == [], "say how to run them in tests/prerequisites.py"


def test_the_readme_test_command_installs_every_program_the_tests_use() -> None:
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("Set up and run the tests") :]
    block = section[section.index("```sh") : section.index("```", section.index("```sh") + 5)]
    assert "scripts/install-system-deps\n" in block, "the packages come from the one setup script"
    script = (REPO / "scripts" / "install-system-deps").read_text()
    for program in prerequisites.PROGRAMS:
        command = program.install.removeprefix(prerequisites.APT).strip()
        where = script if program.install.startswith(prerequisites.APT) else block
        assert all(word in where for word in command.split()), f"{program.what}: {program.install}"
    ci = (REPO / ".ci" / "run").read_text()
    test_line = next(line for line in block.splitlines() if "pytest" in line)
    assert test_line.replace("pip install -e", "pip install --quiet -e") in ci, "CI runs the README's command"


def test_a_run_says_how_to_run_each_skipped_test(tmp_path: Path) -> None:
    (tmp_path / "test_needs.py").write_text(
        "import pytest\n\n"
        "def test_web() -> None:\n"
        "    pytest.skip('needs chromium and chromium-driver')\n\n"
        "def test_unknown() -> None:\n"
        "    pytest.skip('a reason nobody wrote down')\n"
    )
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "prerequisites", "-p", "no:cacheprovider", "--rootdir",
         str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PYTHONPATH": str(TESTS)},
    )  # fmt: skip
    out = ran.stdout
    assert ran.returncode == 0, out
    assert "skipped, and how to run them" in out, out
    assert "1 skipped: needs chromium and chromium-driver" in out
    chromium = (
        "to run them: install Chromium and chromedriver: sudo apt-get install -y chromium chromium-driver"
    )
    assert chromium in out
    assert "to run them: unexplained: say how in tests/prerequisites.py" in out
    header = out.split("collected", 1)[0]
    missing = prerequisites.missing_programs()
    assert all(f"MISSING {need.what}" in header for need in missing), header
