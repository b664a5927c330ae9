"""A build's log and an error are printed as written (issue 47): `submit` showed a Makefile's
continuation backslash doubled (rich's markup ``escape`` doubles a trailing backslash)."""

from __future__ import annotations

import pytest
import typer

from kingmaker.server.cli.common import console, errors, fail
from kingmaker.server.cli.submit import log_line

LINES = ["go build -o bot \\", "  cc -O2 main.c \\", "echo '[bold]not markup[/]' \\\\", "a \\ in the middle"]


@pytest.mark.parametrize("line", LINES)
def test_a_build_log_line_is_printed_as_written(line: str) -> None:
    with console.capture() as captured:
        console.print(log_line("3s", line), highlight=False, soft_wrap=True)
    assert captured.get() == f"    3s {line}\n"


def test_an_error_ending_in_a_backslash_prints_it_once() -> None:
    with errors.capture() as captured, pytest.raises(typer.Exit):
        fail("cannot read C:\\bots\\")
    assert captured.get() == "error: cannot read C:\\bots\\\n"
