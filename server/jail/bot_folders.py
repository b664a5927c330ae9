"""Which of a command's folders the jail shows a bot: its own folder (or only its script, when
the folder would show much more than one bot) and its virtualenv."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from kingmaker.server.jail.sandbox import SYSTEM_PATHS


def bot_folders(command: Sequence[str]) -> list[str]:
    """What the jail must show of the files the command names: the bot's own folder, read-only,
    so that helper modules and compiled files beside its entry point are found; and for a
    program inside a virtualenv the virtualenv (Python finds its packages through the folder's
    pyvenv.cfg). The bot's folder is the folder of its script (the first argument that is an
    existing absolute file: `python /bots/mine/bot.py`), else of its program when that is a file
    of its own (`/bots/cpp/bot`). A folder so broad that it would show the machine (`/`, a
    system folder, the temporary folder other bots' folders are in) is not shown: only the
    file itself is. Other paths among the arguments stay hidden; a bot that needs more files
    gets a working directory (`--workdir`), which the jail shows read-only."""
    shown = []
    program = Path(command[0])
    in_virtualenv = program.is_absolute() and (program.parent.parent / "pyvenv.cfg").exists()
    if in_virtualenv:
        shown.append(str(program.parent.parent))
    script = next((arg for arg in command[1:] if os.path.isabs(arg) and os.path.isfile(arg)), None)
    if script is None and program.is_absolute() and not in_virtualenv and program.is_file():
        script = str(program)
    if script is not None:
        folder = os.path.dirname(os.path.normpath(script))
        shown.append(script if _too_broad(folder) else folder)
    return shown


def _too_broad(folder: str) -> bool:
    """A folder that holds much more than one bot: the root, a user's home, the temporary folder
    (where every bot's own folder and the server's socket are), or a system or Python folder."""
    real = os.path.realpath(folder)
    broad = {"/", "/home", os.path.realpath(tempfile.gettempdir()), os.path.realpath(Path.home())}
    system = [os.path.realpath(path) for path in (*SYSTEM_PATHS, "/etc", "/proc", "/dev", sys.base_prefix)]
    return real in broad or any(real == path or real.startswith(path + "/") for path in system)
