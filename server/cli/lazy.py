"""How the command line starts and ends cheaply: the top-level group imports a command's module
only when that command runs, and a client command ends without the interpreter's teardown.

Commands differ a lot in what they need: `serve` loads the whole server, `duel` the engines and
the SDK, `ladder` only a gRPC stub and a table. Importing them all before parsing the command
line cost every command the sum (3.5 s for `kingmaker ladder` on a loaded machine). So the group
lists each command by name with the one-line summary it shows in `kingmaker --help`, and imports
the module behind a name only when the command line resolves to it. ``exit_now`` is the end."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from kingmaker.server.cli.common import usage_errors_in_one_line
from kingmaker.server.cli.plain_values import read_plainly
from kingmaker.server.cli.readable import make_readable


@dataclass(frozen=True)
class LazyCommand:
    target: str
    """``module:attribute`` under ``kingmaker.server.cli``: a command function or a ``typer.Typer``."""
    summary: str
    """What `kingmaker --help` shows beside the name: the first paragraph of the command's own
    help (a test keeps the two equal)."""
    exits_at_once: bool = True
    """Whether the process may end as soon as the command is done, without tearing the
    interpreter down (see ``exit_now``): true of commands that ask the server or compute, and
    print; false of those that run a server, processes or threads of their own."""

    def load(self, name: str) -> Any:
        """The command, built by typer as if registered on the top-level app, and made readable."""
        module_name, attribute = self.target.split(":")
        found = getattr(importlib.import_module(f"kingmaker.server.cli.{module_name}"), attribute)
        parent = typer.Typer(add_completion=False)
        parent.callback()(_nothing)  # a group, even around one command
        if isinstance(found, typer.Typer):
            parent.add_typer(found, name=name)
        else:
            parent.command(name)(found)
        command = typer.main.get_command(parent).commands[name]  # type: ignore[attr-defined]
        make_readable(command)
        read_plainly(command)
        return command


def _nothing() -> None:
    pass


class StandIn(TyperCommand):
    """A command not imported yet: its name and summary, which is all a listing asks of it."""


class LazyCommands(TyperGroup):
    """Holds a stand-in for each of ``commands_to_load`` and swaps in the real command when the
    command line resolves to it (to run it, or to show its own help)."""

    commands_to_load: ClassVar[Mapping[str, LazyCommand]] = {}
    resolved: LazyCommand | None = None
    """The command the command line resolved to, once it has."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, lazy in self.commands_to_load.items():
            if name not in self.commands:
                self.add_command(StandIn(name, help=lazy.summary), name)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        with usage_errors_in_one_line():  # the top level's own options
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        with usage_errors_in_one_line():  # every command and group below, parsing and running
            return super().invoke(ctx)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else None
        if name is not None and isinstance(self.commands.get(name), StandIn):
            self.add_command(self.commands_to_load[name].load(name), name)
        resolved = super().resolve_command(ctx, args)
        self.resolved = self.commands_to_load.get(resolved[0] or "")
        return resolved


def exit_now(code: object) -> NoReturn:
    """End the process with ``code`` (a SystemExit's) once stdout and stderr are flushed,
    skipping the interpreter's teardown: freeing every module and stopping grpc's threads cost
    a client command ~0.1 s of CPU, a third of `kingmaker ladder`, and several times that in
    wall time on a loaded machine. Only for commands that leave nothing running."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        sys.stderr.write(f"{code}\n")
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`): as Python itself reports it
            status = status or 120
    os._exit(status)
