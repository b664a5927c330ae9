"""The project's bytecode is written once, before a run, where the environment forbids Python to
write it (``PYTHONDONTWRITEBYTECODE``, which this machine's environment sets, as container
images for Python often do).

Python then compiles every module it imports from source in every process, and never keeps the
result: the suite starts some 2,500 of them (servers, their worker processes, the command line,
bots in and out of the jail), and each one compiled kingmaker's modules again (importing the
server took 2.0 s of CPU so, 1.4 from bytecode). Python still reads bytecode that exists; only
the writing is off. So the controlling process (not each xdist worker) compiles the project's
folders into their ``__pycache__`` first, as ``pip install`` does for a package that is not
editable. Nothing changes where Python may write bytecode itself.

pytest's own cache of the test modules with their asserts rewritten is not written either, for
the same reason, so every xdist worker rewrote all of them (13 CPU-s each; 9 of a worker's
13 s of collection), and so did every pytest a test starts. The controlling process writes that
cache once too, with pytest's own rewriting, which its workers then read as they would have read
their own. pytest also rewrites every module of an installed plugin (all of Hypothesis, anyio,
xdist) and the plugins named in conftest.py: those are written too, from what the controlling
process imported (about 1.5 CPU-s less for each later pytest process, 7.4 to 5.9 to collect the
suite)."""

from __future__ import annotations

import contextlib
import os
import py_compile
import sys
from fnmatch import fnmatch
from importlib.util import cache_from_source
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from support import REPO

SKIPPED = {".venv", "node_modules", "build", ".git", "__pycache__"}
"""Folders that are not the project's (the virtual environment, npm's packages, setuptools' build
folder), and bytecode's own: not walked into."""


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if not sys.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    # What pytest rewrites: the test modules (its ``python_files`` patterns) and conftests, in tests/.
    patterns = [*config.getini("python_files"), "conftest.py"]
    rewriting = config.getoption("assertmode") == "rewrite"
    tests = os.path.join(REPO, "tests")
    for folder, folders, files in os.walk(REPO):
        folders[:] = [name for name in folders if name not in SKIPPED]
        in_tests = rewriting and (folder == tests or folder.startswith(tests + os.sep))
        for name in files:
            if name.endswith(".py"):
                _compile(os.path.join(folder, name))
                if in_tests and any(fnmatch(name, pattern) for pattern in patterns):
                    _rewrite(config, Path(folder, name))
    if rewriting:
        for source in _rewritten_imports():
            _rewrite(config, source)


def _rewritten_imports() -> list[Path]:
    """The modules this process imported through pytest's rewriting besides the test modules: the
    plugins that conftest.py's ``pytest_plugins`` names, and every module of an installed plugin
    (pytest rewrites a plugin's whole distribution: all of Hypothesis, anyio, xdist), which every
    worker imports again."""
    return [
        Path(module.__file__)
        for module in list(sys.modules.values())
        if isinstance(getattr(module, "__loader__", None), rewrite.AssertionRewritingHook)
        and isinstance(getattr(module, "__file__", None), str)
        and module.__file__.endswith(".py")
    ]


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


def _rewrite(config: pytest.Config, source: Path) -> None:
    """Write pytest's rewritten ``source`` where its import looks first, unless it is there and
    current (pytest checks the source's time and size)."""
    # pytest's private helpers (pinned below 9.2): should they change, a worker rewrites as before.
    with contextlib.suppress(OSError, SyntaxError, AttributeError, TypeError):
        cached = rewrite.get_cache_dir(source) / (source.name[:-3] + rewrite.PYC_TAIL)
        if rewrite._read_pyc(source, cached) is not None:
            return
        cached.parent.mkdir(exist_ok=True)
        stat, code = rewrite._rewrite_test(source, config)
        rewrite._write_pyc(config.stash[rewrite.assertstate_key], code, stat, cached)
