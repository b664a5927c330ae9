"""Command-line values read without pydantic, so that a client command starts light.

typer coerces every parameter's value through a pydantic ``TypeAdapter`` it builds on first use:
for `kingmaker ladder`, importing pydantic and building its adapters was ~0.2 s of a ~0.45 s
command (``python -X importtime``). kingmaker's parameters are all plain: text, whole and
decimal numbers with bounds, paths, lists of these, and flags (which typer reads without an
adapter). ``read_plainly(command)`` gives each plain parameter a reader of its own, with typer's
own messages for bad values; any other parameter keeps typer's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import RuntimeParam, TypeDescriptor
from typer._param_types import coerce_cli_path
from typer.core import _TyperParameter

PLAIN_KINDS = (str, int, float, bool, Path)
NOT_A = {int: "a valid integer, unable to parse string as an integer",
         float: "a valid number, unable to parse string as a number",
         bool: "a valid boolean, unable to interpret input",
         str: "a valid string"}  # fmt: skip
"""pydantic's words for a value of the wrong kind, as typer shows them."""
YES, NO = {"1", "on", "t", "true", "y", "yes"}, {"", "0", "f", "false", "n", "no", "off"}
"""The words pydantic reads as a flag's value (an empty one is False for typer)."""


@dataclass(frozen=True)
class PlainValue(RuntimeParam):
    """Reads one plain kind of value, or a list of them."""

    kind: type[Any]
    listed: bool

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
        if self.listed:
            return [self._one(item, param, ctx) for item in value]
        return self._one(value, param, ctx)

    def _one(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
        if issubclass(self.kind, Path):
            info = self.parameter_info
            return coerce_cli_path(value, info, path_type=info.path_type or self.kind, param=param, ctx=ctx)
        if self.kind is bool:
            return self._flag(value, param, ctx)
        if isinstance(value, self.kind) and not isinstance(value, bool):
            read = value
        else:
            try:
                read = self.kind(value) if self.kind is not str and isinstance(value, str) else None
            except ValueError:
                read = None
            if read is None:
                raise BadParameter(f"Input should be {NOT_A[self.kind]}", ctx=ctx, param=param)
        return self._bounded(read, param, ctx)

    def _flag(self, value: Any, param: _TyperParameter, ctx: Context) -> bool:
        if isinstance(value, bool):
            return value
        word = value.strip().lower() if isinstance(value, str) else None
        if word in YES or word in NO:
            return word in YES
        raise BadParameter(f"Input should be {NOT_A[bool]}", ctx=ctx, param=param)

    def _bounded(self, number: Any, param: _TyperParameter, ctx: Context) -> Any:
        low, high = self.parameter_info.min, self.parameter_info.max
        if self.kind is str or (low is None and high is None):
            return number
        if number != number:  # NaN: in no range, and no comparison below would say so
            raise BadParameter("Input should be a number, not nan", ctx=ctx, param=param)
        if self.parameter_info.clamp:
            number = max(low, number) if low is not None else number
            return self.kind(min(high, number) if high is not None else number)
        if low is not None and number < low:
            raise BadParameter(
                f"Input should be greater than or equal to {_shown(low)}", ctx=ctx, param=param
            )
        if high is not None and number > high:
            raise BadParameter(f"Input should be less than or equal to {_shown(high)}", ctx=ctx, param=param)
        return number


def _shown(bound: float) -> str:
    """A bound as pydantic writes it: 0.0 as 0, 0.5 as 0.5."""
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def read_plainly(command: Any) -> None:
    """Give every plain parameter of ``command`` (and of its subcommands) a ``PlainValue``, its
    ``--help`` flag (made afresh for each run) included."""
    for param in getattr(command, "params", ()):
        _read_plainly(param)
    made_help = command.get_help_option

    def help_option(ctx: Any) -> Any:
        option = made_help(ctx)
        _read_plainly(option)
        return option

    command.get_help_option = help_option
    for subcommand in getattr(command, "commands", {}).values():
        read_plainly(subcommand)


def _read_plainly(param: Any) -> None:
    if isinstance(param, _TyperParameter) and param._runtime_param is None:
        reader = plain_reader(param.type_descriptor)
        if reader is not None:
            param._runtime_param = reader


def plain_reader(descriptor: TypeDescriptor) -> PlainValue | None:
    """A reader for a parameter of a plain kind with no custom parser; None for any other."""
    annotation: Any = descriptor.annotation
    listed = False
    if get_origin(annotation) is list and len(get_args(annotation)) == 1:
        annotation, listed = get_args(annotation)[0], True
    info = descriptor.parameter_info
    if info.parser is not None or descriptor.is_file or descriptor.is_choice:
        return None
    if not isinstance(annotation, type) or not issubclass(annotation, PLAIN_KINDS):
        return None
    return PlainValue(parameter_info=info, annotation=descriptor.annotation, kind=annotation, listed=listed)
