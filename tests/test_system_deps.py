"""One setup path: the README's two commands and CI install system packages through the same
script, which installs only what is missing (never Debian's npm beside a Node.js that has one)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kingmaker.kits import languages

from support import REPO

SCRIPT = REPO / "scripts" / "install-system-deps"
TOOLS = ("bash", "env", "dirname", "ls", "sort", "python3", "id", "cat", "dpkg-query")
"""What the script itself runs: every other program it looks for is left out of a test's PATH
unless the test puts it there."""


def _sh_blocks(text: str) -> list[str]:
    return [part.split("```", 1)[0] for part in text.split("```sh")[1:]]


def test_the_readme_commands_and_ci_install_through_one_script() -> None:
    readme = (REPO / "README.md").read_text()
    demo, tests = _sh_blocks(readme)[:2]
    assert demo.splitlines()[1] == "scripts/install-system-deps --demo", demo
    assert tests.splitlines()[1] == "scripts/install-system-deps", tests
    assert "apt-get" not in demo + tests, "no second install path beside the script"
    ci = (REPO / ".ci" / "run").read_text()
    assert "\nscripts/install-system-deps\n" in ci
    assert "apt-get" not in ci, "CI installs through the script only"


def _dry_run(tmp_path: Path, programs: tuple[str, ...], *arguments: str) -> str:
    """The script's --dry-run with a PATH holding only its own tools and ``programs``."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for program in TOOLS + programs:
        # python3 is this interpreter's own, not a shim that looks PATH up again (pyenv's)
        found = os.path.realpath(sys.executable) if program == "python3" else shutil.which(program)
        if found is None and program in ("node", "npm"):
            pytest.skip("node is not installed")
        assert found is not None, f"{program} is not installed"
        (folder / program).symlink_to(found)
    done = subprocess.run(
        [str(SCRIPT), "--dry-run", *arguments],
        env={**os.environ, "PATH": str(folder)},
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def _would_install(out: str) -> set[str]:
    line = next((line for line in out.splitlines() if line.startswith("would install: ")), "")
    return set(line.removeprefix("would install: ").split())


def test_the_demo_needs_only_the_jail(tmp_path: Path) -> None:
    assert _would_install(_dry_run(tmp_path, (), "--demo")) == {"bubblewrap"}


def test_the_demo_installs_nothing_where_the_jail_is(tmp_path: Path) -> None:
    out = _dry_run(tmp_path, ("bwrap",), "--demo")
    assert "everything is installed" in out, out


def test_a_node_with_its_own_npm_is_left_alone(tmp_path: Path) -> None:
    wanted = _would_install(_dry_run(tmp_path, ("node", "npm"), "--no-kits"))
    assert {"bubblewrap", "chromium", "chromium-driver", "gcc", "make", "util-linux"} <= wanted
    assert not {"nodejs", "npm"} & wanted, wanted


def test_a_kit_that_needs_node_installs_neither_node_package_where_node_and_npm_are() -> None:
    """The kits' half of the same rule: the script, without --no-kits, adds the packages of each
    kit found not ready (kits/languages.py). Here the TypeScript kit is not ready (its trivial
    build fails) and, beside node and npm, names one package nobody has."""
    if any(shutil.which(program, path=languages.BUILD_PATH) is None for program in ("node", "npm")):
        pytest.skip("node is not installed")  # (or npm: one prerequisite, tests/prerequisites.py)
    typescript = languages.language("typescript")
    assert {"nodejs", "npm"} <= set(typescript.debian)
    broken = dataclasses.replace(
        typescript, probe=languages.Probe("exit 3"), debian=(*typescript.debian, "kingmaker-no-such-package")
    )
    assert not languages.check(broken).ready
    assert languages.missing_packages((broken,)) == ["kingmaker-no-such-package"]


def test_a_node_without_npm_gets_npm_only(tmp_path: Path) -> None:
    wanted = _would_install(_dry_run(tmp_path, ("node",), "--no-kits"))
    assert "npm" in wanted
    assert "nodejs" not in wanted
