"""The protobuf modules the package imports are exactly what protoc makes from proto/ today."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "proto"))
from codegen import generate, proto_files  # noqa: E402


def test_every_generated_module_matches_a_fresh_generation(tmp_path: Path) -> None:
    fresh = [
        path
        for path in generate(REPO / "proto", tmp_path)
        if path.name.endswith(".py") and "_pb2" in path.name
    ]
    assert len(fresh) == 2 * len(proto_files(REPO / "proto"))  # a _pb2 and a _pb2_grpc per .proto
    for path in fresh:
        module_name = ".".join(path.relative_to(tmp_path).with_suffix("").parts)
        installed = Path(importlib.import_module(module_name).__file__ or "")
        assert installed.read_text() == path.read_text(), (
            f"{module_name} is stale: reinstall (pip install -e .) to regenerate it from proto/"
        )
