"""Commands as the caller meant them: relative paths are resolved where the caller typed them.

The server starts a managed bot in a folder of its own (and, jailed, sees only some of the
machine), so `python my_bot.py` typed in the bot's folder would not find `my_bot.py` there. At
registration the command line resolves, against the caller's working directory, the program when
it is a relative path (`.venv/bin/python`) and every argument that names an existing file or
folder (`my_bot.py`, `../bots/x.js`), and stores them absolute; `bot show` shows what was stored.
A bare program name (`python3`, `node`) is looked up on the PATH; one that is not there is refused.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path


class CommandError(ValueError):
    """The command cannot be run as given; the message says why, in one line."""


def resolve_command(argv: Sequence[str], cwd: Path | None = None) -> list[str]:
    """``argv`` with its relative program and relative existing paths made absolute."""
    if not argv:
        raise CommandError("the command is empty")
    if not all(argv):
        position = list(argv).index("")
        word = "the program (its first word)" if position == 0 else f"word {position + 1}"
        raise CommandError(f"{word} of the command is empty")
    base = cwd or Path.cwd()
    program, *arguments = argv
    if os.sep in program:
        path = (base / program).resolve() if not os.path.isabs(program) else Path(program)
        if not path.is_file():
            raise CommandError(f"cannot start {program!r}: there is no such file (looked in {base})")
        if not os.access(path, os.X_OK):
            raise CommandError(f"cannot start {program!r}: {path} is not executable")
        # Keep a virtualenv's interpreter as its link, not the file it points to: the link is what
        # makes it the virtualenv's (resolve() would follow it to the base interpreter).
        program = str(base / program) if not os.path.isabs(program) else program
        program = os.path.normpath(program)
    elif shutil.which(program) is None:
        raise CommandError(f"cannot start {program!r}: it is not on the PATH")
    return [program, *(_absolute_if_present(argument, base) for argument in arguments)]


def resolve_workdir(workdir: str | None, cwd: Path | None = None) -> str | None:
    if workdir is None:
        return None
    path = ((cwd or Path.cwd()) / workdir).resolve()
    if not path.is_dir():
        raise CommandError(f"working directory {workdir!r} does not exist")
    return str(path)


def _absolute_if_present(argument: str, base: Path) -> str:
    if argument.startswith("-") or os.path.isabs(argument):
        return argument
    candidate = base / argument
    return os.path.normpath(str(candidate)) if candidate.exists() else argument
