"""``kingmaker play GAME --bot X [--bot Y ...]``: a person plays one seat in the terminal.

The same table as the website's play page (docs/play.md): the Admin API's ``Play`` stream, held
by a ``SeatRelay`` (the website's own relay), so the seat is asked by the same referee on the
same human clock. The board is text: the seat's observation, one field a line, in full at first
and then only what changed (``replay_text.view_lines``), after every move of any seat. A request
lists the legal actions numbered from 0, grouped and labelled as on the page (``play_choices``);
the person types a number. Anything else, or a number that is not one of them, is refused with
the reason and asked again; a request whose time ran out while the person typed is refused too
(the referee played for the seat). Closing stdin
(Ctrl-D) leaves the table: the seat is lost and the bots play on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import ServerOption, TokenOption, caller_token, fail, server_address

if TYPE_CHECKING:
    from kingmaker.server.web.seat_relay import SeatRelay, SeatState

WAIT_SECONDS = 1.0
"""How long the terminal waits for the table to change before it looks again."""
MINUTE_MS = 60_000


def play(
    game: str = typer.Argument(..., help="The game's name, as `kingmaker games` lists it."),
    bot: list[str] = typer.Option(
        [],
        "--bot",
        "-b",
        help="A registered bot to play against, one per other seat (NAME@N: version N of a bot of "
        "yours). Repeat.",
    ),
    seat: int = typer.Option(
        0, min=0, max=bounds.PLAYERS.high, help="Your seat, 0 to the number of bots (0 plays first)."
    ),
    bank_minutes: int = typer.Option(5, min=1, max=60, help="Your clock's bank, in minutes."),
    increment_seconds: int = typer.Option(
        10, min=0, max=600, help="Seconds added to your bank after each of your decisions."
    ),
    seed: int | None = typer.Option(
        None, min=0, max=bounds.SEED.high, help="Seed of the game's chance (default: random, recorded)."
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Play a seat of GAME against registered bots in the terminal: a text board and numbered actions.

    Your token (`kingmaker login`) names you; the match is stored, unrated, as played with a
    person. Type an action's number and Enter; Ctrl-D leaves the table (the seat is lost)."""
    from kingmaker.server.web.console.client import ConsoleClient
    from kingmaker.server.web.seat_relay import SeatRelay
    from kingmaker.v1 import admin_pb2

    if not bot:
        raise typer.BadParameter("give at least one bot to play against", param_hint="--bot")
    address = server_address(server)
    setup = admin_pb2.PlaySetup(
        game=game,
        opponents=bot,
        seat=seat,
        bank_ms=bank_minutes * MINUTE_MS,
        increment_ms=increment_seconds * 1000,
    )
    if seed is not None:
        setup.seed = seed
    client = ConsoleClient(address)
    try:
        relay = SeatRelay(client, caller_token(admin_token, address), setup)
        terminal = Terminal(relay, sys.stdin, print_line)
        state = terminal.run()
    finally:
        client.close()
    if state.failure and not terminal.left:
        fail(state.failure)
    if state.end is None or state.end["end_reason"] != "finished":
        raise typer.Exit(1)


def print_line(text: str) -> None:
    print(text, flush=True)


class Terminal:
    """One person's table in a terminal: shows what changed, asks when the seat must act."""

    def __init__(self, relay: SeatRelay, keys: TextIO, out: Callable[[str], None]) -> None:
        self.relay = relay
        self.keys = keys
        self.out = out
        self._shown: object | None = None
        """The observation printed last (what the next one is compared with)."""
        self._step = 0
        """The match's moves printed so far."""
        self._notes = 0
        """The referee's messages printed so far."""
        self._started = False
        self.left = False
        """Whether the person left the table (stdin closed)."""

    def run(self) -> SeatState:
        """Play until the match is over (or the table failed); the last state."""
        version = 0
        while True:
            self.relay.wait(version, WAIT_SECONDS)
            state = self.relay.snapshot()
            version = state.version
            self._show(state)
            if state.end is not None or state.failure:
                return state
            if state.request is not None and not self._ask(state):
                self.out("stdin closed: you leave the table (the seat is lost, the bots play on)")
                self.left = True
                self.relay.leave()
                self.relay.wait(version, WAIT_SECONDS * 10)  # its end, when the server says it
                return self.relay.snapshot()

    def _show(self, state: SeatState) -> None:
        from kingmaker.server.cli.replay_text import view_lines

        if state.match_id and not self._started:
            self._started = True
            names = ", ".join(
                f"{seat} {name}{' (you)' if seat == state.seat else ''}"
                for seat, name in enumerate(state.names)
            )
            bank = state.control.get("bank_ms", 0) // 1000
            increment = state.control.get("increment_ms", 0) // 1000
            self.out(f"{state.game} match {state.match_id}; seats: {names}")
            self.out(f"your clock: {bank} s in the bank, {increment} s more after each decision")
        new_moves = min(state.step - self._step, len(state.moves))
        for move in state.moves[len(state.moves) - new_moves :] if new_moves > 0 else ():
            self.out(move)
        self._step = max(self._step, state.step)
        for note in state.notes[self._notes :]:
            self.out(f"the referee: {note}")
        self._notes = len(state.notes)
        observation = state.request.observation if state.request is not None else state.last_observation
        if observation is not None and observation is not self._shown:
            for line in view_lines(observation, self._shown):
                self.out(f"  {line}")
            self._shown = observation
        if state.end is not None:
            self.out(f"the match is over ({state.end['end_reason']} for you):")
            for result in state.end["results"]:
                you = " (you)" if result["seat"] == state.seat else ""
                self.out(
                    f"  seat {result['seat']} {result['bot']}{you}: rank {result['rank']}, "
                    f"score {result['score']} ({result['end_reason']})"
                )
            self.out(f"stored as match {state.match_id}: `kingmaker replay {state.match_id}`")
        elif state.failure and not self.left:
            self.out(f"the table ended: {state.failure}")

    def _ask(self, state: SeatState) -> bool:
        """Ask for the open request's action until one is sent or refused as stale; False when
        stdin is closed."""
        from kingmaker.server.web.play_choices import grouped_choices
        from kingmaker.server.web.seat_relay import Refused

        request = state.request
        assert request is not None
        self.out(f"your move ({request.bank_ms // 1000} s in your bank):")
        for group in grouped_choices(state.game, request.actions)["groups"]:
            self.out(f"  {group['label']}:")
            for choice in group["choices"]:
                self.out(f"    {choice['index']}) {choice['text']}")
        while True:
            self.out(f"type 0 to {len(request.actions) - 1}:")
            line = self.keys.readline()
            if not line:
                return False
            text = line.strip()
            if not text.isascii() or not text.isdigit() or len(text) > 9:
                self.out(f"refused: {text[:40]!r} is not a number: type the number of an action")
                continue
            try:
                self.relay.answer(request.request_id, int(text))
            except Refused as refused:
                self.out(f"refused: {refused}")
                if self.relay.snapshot().request is not request:
                    return True  # its time ran out: the next request (or the end) is shown next
                continue
            return True
