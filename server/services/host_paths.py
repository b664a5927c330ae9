"""Host paths out of the texts an author or the public reads.

A server-side failure's text (an exception, a traceback) names the server's own folders: its run
folder (``/tmp/kingmaker-run-XXXX``), its home, where Python and kingmaker are installed. Those tell
a stranger where to aim (issue #32 used the home's path to reach the admin token), so a text
stored on a version or shown to its owner says them with neutral names instead.
"""

from __future__ import annotations

import functools
import os
import re
import site
import sys
import sysconfig
from pathlib import Path

import kingmaker.server as server_package
from kingmaker.server.jail import run_folder
from kingmaker.server.locations import home_directory

RUN_FOLDER = re.compile(r"(?:/[^\s'\"/:]+)*/" + re.escape(run_folder.PREFIX) + r"[^\s'\"/:]*")
"""Any run folder, of this server or another one (``/tmp/kingmaker-run-abc123``)."""


_HOMES: set[str] = set()
"""The homes of the servers this process started (``remember_home``)."""


def remember_home(home: Path) -> None:
    """A server's home, said ``<server home>`` from now on (``$KINGMAKER_HOME`` may change after)."""
    _HOMES.add(str(home.resolve()))


def host_places() -> list[tuple[str, str]]:
    """The server's folders and their neutral names, longest path first (a folder inside another
    takes its own name)."""
    return list(_current_places())


def _current_places() -> tuple[tuple[str, str], ...]:
    homes = tuple(sorted({str(home_directory().resolve()), *_HOMES}))
    return _places(homes, os.getcwd())


@functools.lru_cache(maxsize=8)
def _places(homes: tuple[str, ...], cwd: str) -> tuple[tuple[str, str], ...]:
    named = {
        **dict.fromkeys(homes, "<server home>"),
        str(
            Path(server_package.__file__).resolve().parents[1]
        ): "<kingmaker>",  # where kingmaker is installed
        sysconfig.get_paths()["purelib"]: "<site-packages>",
        sysconfig.get_paths()["stdlib"]: "<python>",
        sys.prefix: "<python>",
        sys.base_prefix: "<python>",
        sys.exec_prefix: "<python>",
        str(Path.home()): "<user home>",
    }
    named.setdefault(cwd, "<server folder>")
    for folder in (*site.getsitepackages(), site.getusersitepackages()):
        named.setdefault(folder, "<site-packages>")
    for path, name in list(named.items()):  # as the kernel names them too (a link's target)
        named.setdefault(os.path.realpath(path), name)
    places = [(path.rstrip("/"), name) for path, name in named.items() if len(path.rstrip("/")) > 1]
    return tuple(sorted(places, key=lambda place: len(place[0]), reverse=True))


@functools.lru_cache(maxsize=4)
def _pattern(places: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(path) for path, _ in places)
    return re.compile(f"(?:{alternatives})(?=$|[/\\s'\":,)\\]])")


def neutral(text: str) -> str:
    """``text`` with every host path of the server's said by a neutral name."""
    if not text:
        return text
    text = RUN_FOLDER.sub("<run folder>", text)
    places = _current_places()
    names = dict(places)
    return _pattern(places).sub(lambda found: names[found.group(0)], text)
