"""Help that reads well: a word for what each option takes (GAME, N, PATH) instead of Python
type names, nothing after a flag, and docstring paragraphs wrapped to the terminal."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer.main
from typer.core import TyperArgument, TyperGroup, TyperOption

# What a value is called in help, by the parameter's Python type (str: the parameter's name).
_WORDS: dict[Any, str] = {int: "N", float: "NUMBER", Path: "PATH"}
_NAMES = {"server": "ADDRESS", "admin_token": "TOKEN", "after": "TOKEN", "before": "ID", "format": "FORMAT"}


def readable_command(app: typer.Typer) -> Any:
    """The app's command tree with readable metavars and help text (what ``kingmaker`` runs)."""
    command = typer.main.get_command(app)
    make_readable(command)
    return command


def make_readable(command: Any) -> None:
    """Readable metavars and help for a command and every subcommand it has loaded."""
    if command.help:
        command.help = _unwrap(command.help)
    for param in command.params:
        if param.metavar is not None:
            continue
        if isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""
        elif isinstance(param, TyperOption):
            param.metavar = _word(param)
        elif isinstance(param, TyperArgument):
            param.metavar = _word(param)
            param.display_type_rich = _nothing  # type: ignore[method-assign]  # no "<str>" beside NAME
    made_help = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = made_help(ctx)
        if option is not None:
            option.metavar = ""  # a flag: nothing follows it
        return option

    command.get_help_option = help_option
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            make_readable(sub)


def _nothing(ctx: Any) -> None:
    return None


def _word(param: Any) -> str:
    name = str(param.name)
    if name in _NAMES:
        return _NAMES[name]
    descriptor = param.type_descriptor
    annotation = descriptor.annotation
    if descriptor.is_list:
        annotation = str
    word = _WORDS.get(annotation)
    if word is None:
        word = name.upper().rstrip("_")
    return word


def _unwrap(text: str) -> str:
    """Join the lines of each paragraph, so the terminal wraps them (paragraphs stay apart)."""
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)
