"""The .proto files pass buf lint, and buf's breaking-change check does catch a breaking change.

CI runs both checks in .ci/node-and-buf; these tests show that the breaking check is not
vacuous: the same command that passes on proto/ fails on a copy with one field renumbered.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support import REPO

BASELINE = REPO / ".ci" / "proto-baseline.json"


def buf() -> str:
    found = sorted((REPO / "sample_bots" / "node" / "node_modules" / "@bufbuild").glob("buf-linux-*/bin/buf"))
    if not found:
        pytest.skip("buf is missing from sample_bots/node/node_modules: run .ci/node-and-buf (npm ci) first")
    return str(found[0])


def run_buf(*arguments: str, proto: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([buf(), *arguments], cwd=proto, capture_output=True, text=True, timeout=120)


def test_the_proto_files_pass_lint_and_the_breaking_check() -> None:
    proto = REPO / "proto"
    lint = run_buf("lint", proto=proto)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    breaking = run_buf("breaking", "--against", str(BASELINE), proto=proto)
    assert breaking.returncode == 0, breaking.stdout + breaking.stderr


def test_the_breaking_check_rejects_a_renumbered_field(tmp_path: Path) -> None:
    copy = tmp_path / "proto"
    shutil.copytree(REPO / "proto", copy, ignore=shutil.ignore_patterns("*.py", "*.pyi", "__pycache__"))
    arena = copy / "kingmaker" / "v1" / "arena.proto"
    text = arena.read_text()
    assert "uint32 deadline_ms = 6;" in text
    arena.write_text(text.replace("uint32 deadline_ms = 6;", "uint32 deadline_ms = 16;"))
    breaking = run_buf("breaking", "--against", str(BASELINE), proto=copy)
    assert breaking.returncode != 0
    assert "deadline_ms" in breaking.stdout + breaking.stderr
