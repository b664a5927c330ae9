"""The tree keeps the shape a newcomer can find their way in (issues #34 and #44): no module past
500 lines in the library layers, few modules loose in server/ and in ladder/, and every folder of
server/ and ladder/ saying in its ``__init__`` what it owns and what it may import. The import
rules themselves are in ``.importlinter`` (checked by ``.ci/importcheck``, whose refusal of a
wrong import is tested here too)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("games", "sdk", "ladder", "server", "envs")
MAX_LINES = 500
MAX_LOOSE_MODULES = 12


def _modules(layer: str) -> list[Path]:
    return sorted(
        path
        for path in (ROOT / layer).rglob("*.py")
        if "migrations" not in path.parts and not path.name.endswith(("_pb2.py", "_pb2_grpc.py"))
    )


@pytest.mark.parametrize("layer", LAYERS)
def test_no_module_is_longer_than_the_limit(layer: str) -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _modules(layer)
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them by idea): {long}"


@pytest.mark.parametrize("layer", ["server", "ladder"])
def test_few_modules_sit_outside_the_layers_folders(layer: str) -> None:
    loose = sorted(path.name for path in (ROOT / layer).glob("*.py") if path.name != "__init__.py")
    assert len(loose) <= MAX_LOOSE_MODULES, f"{len(loose)} modules loose in {layer}/: {loose}"


def _parts() -> list[Path]:
    return sorted(
        path.parent for layer in ("server", "ladder") for path in (ROOT / layer).glob("*/__init__.py")
    )


@pytest.mark.parametrize("folder", _parts(), ids=lambda folder: f"{folder.parent.name}/{folder.name}")
def test_every_part_says_what_it_owns_and_may_import(folder: Path) -> None:
    where = f"{folder.parent.name}/{folder.name}/__init__.py"
    docstring = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    assert docstring, f"{where} has no docstring"
    if where not in ("server/cli/__init__.py", "server/web/__init__.py"):
        # The top layers say how they reach the rest instead.
        assert "May import" in docstring, f"{where} does not say what it may import"


def test_a_wrong_import_in_the_ladder_fails_the_check_with_its_contracts_name(tmp_path: Path) -> None:
    """The contracts are not only kept today: the check refuses an import that runs back up."""
    # The venv's own lint-imports, beside this interpreter: the test command runs .venv/bin/pytest
    # without the venv on PATH.
    lint_imports = Path(sys.executable).parent / "lint-imports"
    assert lint_imports.exists(), "import-linter, of the dev extra the tests are installed with, is missing"
    for name in ("games", "server", "sdk", "ladder", "sample_bots", "kits"):
        shutil.copytree(
            ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules")
        )
    shutil.copytree(ROOT / ".ci", tmp_path / ".ci")
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    standings = tmp_path / "ladder" / "ratings" / "standings.py"
    # The standings reading a league: ratings sit below leagues, so this must be refused.
    standings.write_text(standings.read_text() + "\nfrom kingmaker.ladder.leagues import leagues  # noqa\n")

    check = subprocess.run(
        ["bash", str(tmp_path / ".ci" / "importcheck")],
        env={**os.environ, "LINT_IMPORTS": str(lint_imports)},
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert check.returncode != 0
    assert "Ladder parts: each imports only those below it" in check.stdout
    assert "kingmaker.ladder.ratings.standings -> kingmaker.ladder.leagues.leagues" in check.stdout
