"""Without the ``envs`` extra the environments refuse to import with a message naming it, and
nothing else of kingmaker needs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

BLOCK = (
    "import sys; [sys.modules.__setitem__(name, None) for name in ('pettingzoo', 'gymnasium', 'pyspiel')]; "
)


@pytest.mark.parametrize("module", ["kingmaker.envs.pettingzoo", "kingmaker.envs.openspiel"])
def test_an_environment_names_the_extra_it_needs(module: str) -> None:
    run = subprocess.run([sys.executable, "-c", BLOCK + f"import {module}"], capture_output=True, text=True)
    assert run.returncode != 0
    assert "pip install 'kingmaker[envs]'" in run.stderr.splitlines()[-1]


def test_the_command_line_starts_without_them() -> None:
    code = BLOCK + "from kingmaker.server.cli import main; sys.argv = ['kingmaker', '--help']; main()"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "play-policy" in run.stdout
