"""``kingmaker bridge -- COMMAND...``: play as a bot through a program that speaks JSON lines."""

from __future__ import annotations

import asyncio

import typer

from kingmaker.sdk.bridge import StreamEnded, exit_as
from kingmaker.sdk.bridge import bridge as run_bridge
from kingmaker.sdk.client import ConnectionRefused
from kingmaker.server.cli.common import BotServerOption, BotTokenOption, fail


def bridge(
    command: list[str] = typer.Argument(..., help="The program to run, after `--`, with its arguments."),
    server: str = BotServerOption,
    token: str = BotTokenOption,
    game: list[str] = typer.Option(
        [], "--game", "-g", help="A game this bot plays (repeat for several). Default: any."
    ),
    compact: bool = typer.Option(
        False,
        "--compact",
        help="Action requests in the compact form: the legal actions' type and field names said once "
        '(docs/protocol.md, "The compact form").',
    ),
) -> None:
    """Connect to the server as a bot and let COMMAND play: it reads one JSON request per line on
    stdin and writes one JSON reply per line on stdout (see docs/protocol.md, "The JSON bridge").
    Exits as COMMAND did (its code, or its signal); SIGTERM leaves after the match in play."""
    try:
        bridged = run_bridge(command, server, token, game, on_program_exit=exit_as, compact=compact)
        status = asyncio.run(bridged)
    except ConnectionRefused as error:
        fail(f"the server refused this bot: {error}", code=2)
    except StreamEnded as error:  # one line, not a traceback: the bot's stderr is its author's log
        fail(f"the server ended the stream: {error}")
    except OSError as error:  # the command could not be started
        fail(f"cannot run {command[0]!r}: {error}")
    except KeyboardInterrupt:
        status = 130
    exit_as(status)  # the program's own status, a signal included
