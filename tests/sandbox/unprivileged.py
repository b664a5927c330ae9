"""A copy of this checkout as the README's set-up leaves it, for a server run by an unprivileged
user: the code, a `.venv` with the project installed editable, and the user's own folder to run
`kingmaker serve` in (so its home is `./.kingmaker`, beside the code, as the README has it).

The virtualenv is made with an interpreter that user may run (this one when it is reachable,
else the system's Python of the same version) and given this virtualenv's packages as hard
links (copies across file systems), so no package is downloaded: only the checkout's own
install runs (its protocol code is generated), without build isolation.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from support import REPO

NOBODY = 65534
NOGROUP = 65534
# Every layer folder (a package at the top: setup.py installs them all), the entry and the protos:
# a fixed list fell behind when the server began to import kits/.
CODE = (*sorted(init.parent.name for init in REPO.glob("*/__init__.py")), "cli_entry", "proto")
BUILD = ("pyproject.toml", "setup.py", "README.md")


def reachable_by_others(path: str) -> bool:
    """Whether a user other than the owner may run ``path`` (every folder on the way open)."""
    real = os.path.realpath(path)
    for folder in Path(real).parents:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
    return bool(os.stat(real).st_mode & stat.S_IXOTH)


def python_for_others() -> str | None:
    """An interpreter of this Python's version that an unprivileged user may run, or None."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, sys._base_executable, f"/usr/bin/python{version}"):
        if os.path.exists(candidate) and reachable_by_others(candidate):
            return candidate
    return None


def readme_checkout(python: str) -> Path:
    """The checkout folder (the caller removes ``checkout.parent``); the unprivileged user owns
    the checkout folder itself, so `serve` can make its home there, and reads the rest."""
    root = Path(tempfile.mkdtemp(prefix="kingmaker-unprivileged-"))
    root.chmod(0o755)
    checkout = root / "kingmaker"
    checkout.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "node_modules", "*_pb2.py", "*_pb2.pyi", "*_pb2_grpc.py")
    for name in CODE:
        shutil.copytree(REPO / name, checkout / name, ignore=ignore)
    for name in BUILD:
        shutil.copy2(REPO / name, checkout / name)
    venv = checkout / ".venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True)
    packages = Path(sysconfig.get_paths()["purelib"])
    target = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    shutil.rmtree(target)
    try:
        shutil.copytree(packages, target, copy_function=os.link, ignore=_this_project)
    except OSError:  # another file system: copies
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(packages, target, ignore=_this_project)
    install = ["install", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-e", str(checkout)]
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", *install],
        check=True,
        capture_output=True,
    )
    os.chown(checkout, NOBODY, NOGROUP)
    return checkout


def _this_project(folder: str, names: list[str]) -> list[str]:
    """Leave out this checkout's own install (the copy installs itself) and caches."""
    return [
        name
        for name in names
        if name == "__pycache__"
        or ("kingmaker" in name and (name.startswith("__editable__") or name.endswith(".dist-info")))
    ]
