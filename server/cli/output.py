"""How listing commands print: a table that fits 80 columns without cutting the names a user
must type again, or JSON (``--json``) for scripts."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import typer

from kingmaker.server.cli.common import console

if TYPE_CHECKING:
    from google.protobuf.message import Message
    from rich.table import Table

JsonOption = typer.Option(False, "--json", help="Print JSON (for scripts) instead of a table.")


def as_data(message: Message) -> dict[str, Any]:
    """A message as plain JSON data, with the field names of the .proto and every field present."""
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def print_json(data: Any) -> None:
    """JSON on stdout, unwrapped and uncoloured, whatever the terminal."""
    typer.echo(json.dumps(data, indent=2, sort_keys=False, default=str))


def table(title: str, columns: Iterable[str], wrap: Iterable[str] = ()) -> Table:
    """A table without vertical rules, whose columns never wrap or shorten (names, ids and
    numbers, which a user reads whole or types again) except the free-text ``wrap`` columns,
    which wrap to keep the table within the terminal."""
    from rich import box
    from rich.table import Table

    wrapping = set(wrap)
    # Two spaces between columns and none at the edges: nine columns of numbers and a 20-letter
    # name fit in 80.
    made = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False)
    for column in columns:
        if column in wrapping:
            made.add_column(column, overflow="fold")
        else:
            made.add_column(column, no_wrap=True)
    return made


def print_table(made: Table) -> None:
    """Print a table made by ``table``; its whole-value columns keep their full width (rich would
    otherwise shorten them to fit), so only the free-text columns give way."""
    for column in made.columns:
        if column.no_wrap:
            cells = [str(cell) for cell in column.cells]
            column.min_width = max([len(str(column.header)), *map(len, cells)])
    # Title and caption as lines of their own, so a narrow table does not squeeze them.
    title, caption = made.title, made.caption
    made.title = made.caption = None
    if title:
        console.print(title, style="bold", highlight=False, soft_wrap=True)
    console.print(made)
    if caption:
        console.print(caption, style="dim", highlight=False)
