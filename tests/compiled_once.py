"""The project's bytecode is written once, before a run, where the environment forbids Python to
write it (``PYTHONDONTWRITEBYTECODE``, which this machine's environment sets, as container
images for Python often do).

Python then compiles every module it imports from source in every process, and never keeps the
result: the suite starts some 2,500 of them (servers, their worker processes, the command line,
bots in and out of the jail), and each one compiled kingmaker's modules again (importing the
server took 2.0 s of CPU so, 1.4 from bytecode). Python still reads bytecode that exists; only
the writing is off. So the controlling process (not each xdist worker) compiles the project's
folders into their ``__pycache__`` first, as ``pip install`` does for a package that is not
editable. Nothing changes where Python may write bytecode itself."""

from __future__ import annotations

import contextlib
import os
import py_compile
import sys
from importlib.util import cache_from_source

import pytest

from support import REPO

SKIPPED = {".venv", "node_modules", "build", ".git", "__pycache__"}
"""Folders that are not the project's (the virtual environment, npm's packages, setuptools' build
folder), and bytecode's own: not walked into."""


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not sys.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    for folder, folders, files in os.walk(REPO):
        folders[:] = [name for name in folders if name not in SKIPPED]
        for name in files:
            if name.endswith(".py"):
                _compile(os.path.join(folder, name))


def _compile(source: str) -> None:
    """Write ``source``'s bytecode unless it is there and as new (an unchanged file costs a stat)."""
    compiled = cache_from_source(source)
    try:
        if os.stat(compiled).st_mtime >= os.stat(source).st_mtime:
            return
    except OSError:
        pass
    with contextlib.suppress(py_compile.PyCompileError, OSError):  # (said when it is imported)
        py_compile.compile(source, cfile=compiled, doraise=True)
