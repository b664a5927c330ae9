"""Build hooks that pyproject.toml cannot express.

The metadata lives in pyproject.toml. This file does two things the static config cannot:
it finds the protobuf packages under proto/ (so adding a game's .proto needs no edit here),
and it generates their Python code with grpcio-tools before the packages are collected.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT / "proto"))
from codegen import generate, proto_packages  # noqa: E402

LAYERS = {
    "kingmaker.games": "games",
    "kingmaker.server": "server",
    "kingmaker.sdk": "sdk",
    "kingmaker.ladder": "ladder",
    "kingmaker.sample_bots": "sample_bots",
    "kingmaker.kits": "kits",
    "kingmaker.envs": "envs",
}


def _layer_packages() -> dict[str, str]:
    """Every package under each layer folder, mapped to its directory."""
    found: dict[str, str] = {}
    for package, folder in LAYERS.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            relative = init.parent.relative_to(ROOT / folder)
            name = ".".join([package, *relative.parts])
            found[name] = str(init.parent.relative_to(ROOT))
    return found


class BuildPyWithProtos(build_py):
    """Generate the protobuf modules first, so they are collected like any other module."""

    def run(self) -> None:
        generate(ROOT / "proto")
        super().run()


# "kingmaker" itself is a namespace package; cli_entry/ gives it only a __main__.py, so that
# `python -m kingmaker` runs the command line.
packages = {"kingmaker": "cli_entry", **_layer_packages(), **proto_packages(ROOT / "proto")}
# `kingmaker init` copies the contract's .proto files into a kit.
protos = {package: ["*.proto"] for package in proto_packages(ROOT / "proto")}
setup(
    packages=sorted(packages),
    package_dir=packages,
    package_data={
        "kingmaker.games": ["py.typed"],
        "kingmaker.sdk": ["py.typed"],
        "kingmaker.games.kingsville": ["*.json"],
        "kingmaker.ladder.storage.migrations": ["*.mako"],
        "kingmaker.server.web": ["templates/*.html", "static/*"],
        # Each kit folder, dot-files included (glob's * skips them).
        "kingmaker.kits": ["*.md", "*/**/*", "*/.*", "*/**/.*"],
        **protos,
    },
    cmdclass={"build_py": BuildPyWithProtos},
)
