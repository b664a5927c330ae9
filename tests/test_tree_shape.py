"""The tree keeps the shape a newcomer can find their way in (issue #34): no module past 500
lines in the library layers, few modules loose in server/, and every server subsystem saying in
its ``__init__`` what it owns and what it may import. The import rules themselves are in
``.importlinter`` (checked by ``.ci/importcheck``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("games", "sdk", "ladder", "server")
MAX_LINES = 500
MAX_LOOSE_SERVER_MODULES = 12


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


def test_server_keeps_few_modules_outside_its_subsystems() -> None:
    loose = sorted(path.name for path in (ROOT / "server").glob("*.py") if path.name != "__init__.py")
    assert len(loose) <= MAX_LOOSE_SERVER_MODULES, f"{len(loose)} modules loose in server/: {loose}"


def _subsystems() -> list[Path]:
    return sorted(path.parent for path in (ROOT / "server").glob("*/__init__.py"))


@pytest.mark.parametrize("folder", _subsystems(), ids=lambda folder: folder.name)
def test_every_server_subsystem_says_what_it_owns_and_may_import(folder: Path) -> None:
    docstring = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    assert docstring, f"server/{folder.name}/__init__.py has no docstring"
    if folder.name not in ("cli", "web"):  # the top layers say how they reach the rest instead
        assert "May import" in docstring, f"server/{folder.name}/__init__.py does not say what it may import"
