"""Play through a program that speaks JSON lines on stdin and stdout, for languages without gRPC.

``kingmaker bridge -- COMMAND...`` connects to the server as a bot exactly like ``sdk.client``
does (address and token from ``KINGMAKER_SERVER`` / ``KINGMAKER_TOKEN`` or the options), starts
COMMAND, and translates:

- every message the server sends (Welcome, MatchStart, ActionRequest, MatchEnd, Error) becomes
  one line on the program's stdin: the ``kingmaker.v1.ServerMessage`` in the proto3 JSON mapping,
  e.g. ``{"actionRequest": {"matchId": "...", "requestId": "7", ...}}`` (uint64 values are JSON
  strings, enums are names, observations and actions are ``google.protobuf.Any`` objects with an
  ``"@type"`` key). Fields at their zero value are printed too where the protobuf library
  can (``"seat": 0``), to spare simple programs; it leaves them out at the top level of an
  ``Any``, so a program must still read a missing field as its zero value;
- every line the program writes on stdout is one reply: a ``kingmaker.v1.ActionReply`` in JSON
  (``{"legalActionIndex": 0}`` is enough), or a ``BotMessage`` holding one (``{"reply": {...}}``);
  or, about match ends, the program's promise ``{"hello": {"acknowledgesMatchEnd": true}}`` and
  then one ``{"matchEndSeen": {"matchId": "..."}}`` per match end, once it has handled it.

Decisions the protocol leaves to the bridge:

- A reply without ``matchId`` and ``requestId`` answers the oldest request still open, so the
  simplest program never has to copy ids; one that names them is routed by them.
- A request is open until the server closes it: the bridge keeps no clock of its own (the server's
  time rule differs for launched and remote bots, docs/protocol.md, "The clock"). It is closed
  when the server strikes it (``LATE_REPLY`` naming it), asks the same match again, or ends the
  match. A late line that names its request still goes to the server, which answers LATE_REPLY;
  one without ids answers the oldest open request, so a program that may be late should name
  its request.
- A line that does not open a JSON object (a PHP warning, a debug print) is the program's output,
  not a reply: the bridge quotes it on stderr and the request stays open, so the reply that
  follows counts. A JSON object that is no valid reply (broken JSON, an unknown field, an index
  that is no whole number) is sent on with ``malformed`` saying what is wrong and quoting it
  (``sdk/bridge_lines.py``): the server strikes it as MALFORMED_REPLY in those words.
- The program's stderr is the bridge's stderr (the server keeps its tail when a seat faults);
  every ``Error`` the server sends is written there too, so a bot's owner reads why it was struck.
- When the program exits, the bridge ends at once the same way (``on_program_exit``: the same
  exit code, or killed by the same signal), so the server records the program's own end ("exited
  with code 3", "killed by SIGSEGV"), exactly as for a gRPC bot; a program that closes its stdout
  but lives on has disconnected. When the server closes the stream, the program's stdin is closed
  (end of file) and it is given ``EXIT_WAIT_SECONDS`` to exit before it is killed.
- The bridge's hello promises the server a ``MatchEndSeen`` for every ``MatchEnd`` (the server
  waits for it before it cuts a launched bot's log at a match's end, docs/protocol.md, "Match
  end"). For a program that promised too, it passes the program's on; for any other (every bridged
  program written before), it sends one itself as soon as it has written the end to the program,
  so such a program is never waited for, as before.
- SIGTERM drains: the bridge says ``Goodbye``, so the server offers it no new match and ends the
  stream once the match in play is over; a second SIGTERM stops at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import signal
import sys
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import grpc
from google.protobuf import json_format

from kingmaker.games.registry import game_names
from kingmaker.sdk.bridge_compact import compact_line
from kingmaker.sdk.bridge_lines import quoted, read_line
from kingmaker.sdk.client import (
    CLIENT,
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    REFUSED,
    ConnectionRefused,
    server_address,
)
from kingmaker.sdk.outbox import Outbox
from kingmaker.v1 import arena_pb2, arena_pb2_grpc

EXIT_WAIT_SECONDS = 2.0
"""How long the program may take to exit after its stdin closes."""

PROGRAM_GONE_SECONDS = 0.25
"""How long after the program closes its stdout the bridge waits to see whether it exited (a
crash) or lives on (it hung up: a disconnection)."""

LINE_LIMIT_BYTES = MAX_MESSAGE_BYTES
"""The longest reply line the bridge reads."""

BRIDGE_CLIENT = CLIENT.replace("python-sdk", "bridge")

log = logging.getLogger("kingmaker.bridge")


def _say(text: str) -> None:
    """One line for the program's owner, on the bridge's stderr (the bot's log)."""
    print(f"kingmaker bridge: {text}", file=sys.stderr, flush=True)


def load_game_messages() -> None:
    """Import every game's generated messages so Any payloads convert to and from JSON."""
    for name in game_names():
        importlib.import_module(f"kingmaker.{name}.v1.{name}_pb2")


def to_json_line(message: arena_pb2.ServerMessage) -> bytes:
    """One server message as one line of proto3 JSON, zero values included (newlines inside
    strings are escaped, so a line is always one message)."""
    text = json_format.MessageToJson(
        message, indent=None, ensure_ascii=True, always_print_fields_with_no_presence=True
    )
    return text.encode("ascii") + b"\n"


class StreamEnded(Exception):
    """The server ended the stream with a status that is not OK (the bot broke the protocol)."""


@dataclass
class _Bridge:
    program: asyncio.subprocess.Process
    on_program_exit: Callable[[int], None] | None = None
    compact: bool = False
    """Action requests in the compact form (``bridge_compact``)."""
    outbox: Outbox = field(default_factory=Outbox)
    draining: bool = False
    stopping: bool = False
    """The stream is over and the bridge is stopping the program: its exit is not a crash."""
    # request_id -> match_id of the requests waiting for a line, oldest first.
    open: OrderedDict[int, str] = field(default_factory=OrderedDict)
    program_acknowledges: bool = False
    """The program promised (its hello line) to acknowledge every match end itself."""
    # The matches whose end the program was given and has not acknowledged yet, oldest first.
    ends_unseen: OrderedDict[str, None] = field(default_factory=OrderedDict)

    async def send_to_program(self, message: arena_pb2.ServerMessage) -> None:
        self.outbox.heard(message)
        kind = message.WhichOneof("message")
        written = await self._write(message)
        if kind == "match_end":
            self._end_given(message.match_end.match_id, written)

    async def _write(self, message: arena_pb2.ServerMessage) -> bool:
        """Write one message to the program, first keeping the requests it opens or closes; whether
        it was written (not when the program closed its stdin)."""
        stdin = self.program.stdin
        if stdin is None or stdin.is_closing():
            return False
        kind = message.WhichOneof("message")
        if kind == "action_request":
            request = message.action_request
            self._close_requests_of(request.match_id)  # the server has moved on: those are closed
            self.open[request.request_id] = request.match_id
        elif kind == "match_end":
            self._close_requests_of(message.match_end.match_id)
        elif kind == "error":
            error = message.error
            if error.code == arena_pb2.ERROR_CODE_LATE_REPLY:
                self.open.pop(error.request_id, None)
            # Also in its owner's log (a launched bot's stderr) or on its author's terminal.
            about = f" (match {error.match_id}, request {error.request_id})" if error.request_id else ""
            name = arena_pb2.ErrorCode.Name(error.code)
            _say(f"the server says {name}{about}: {error.message}")
        try:
            stdin.write(compact_line(message) if self.compact else to_json_line(message))
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            log.info("the program closed its stdin")
            return False
        return True

    def _end_given(self, match_id: str, written: bool) -> None:
        """A match's end was written to the program (or could not be): the server hears it was
        seen now, unless the program promised to say so itself once it has handled it."""
        if self.program_acknowledges and written:
            self.ends_unseen[match_id] = None
        else:
            self._seen(match_id)

    def _seen(self, match_id: str) -> None:
        seen = arena_pb2.MatchEndSeen(match_id=match_id)
        self.outbox.put(arena_pb2.BotMessage(match_end_seen=seen))

    def _on_end_seen(self, match_id: str, line: bytes) -> None:
        """The program acknowledged a match's end: the one it names, or its oldest unacknowledged."""
        if not match_id:
            if not self.ends_unseen:
                _say(f"a matchEndSeen with no match end to acknowledge, ignored: {quoted(line)}")
                return
            match_id, _ = self.ends_unseen.popitem(last=False)
        self.ends_unseen.pop(match_id, None)
        self._seen(match_id)  # one the server does not wait for (said twice, too late) it ignores

    def _close_requests_of(self, match_id: str) -> None:
        for request_id in [key for key, match in self.open.items() if match == match_id]:
            del self.open[request_id]

    def on_line(self, line: bytes) -> None:
        """Turn one line from the program into a reply to the server, or keep it as output."""
        read = read_line(line)
        if read.promises_ends:
            self.program_acknowledges = True
            return
        if read.end_seen is not None:
            self._on_end_seen(read.end_seen, line)
            return
        if read.ignored:
            _say(f"ignored: {read.ignored}")
            return
        reply = read.reply
        if reply is None:  # the program's own output: its owner sees it, the request stays open
            _say(f"not a reply, kept as the program's output: {quoted(line)}")
            return
        if not read.routed:
            if not self.open:
                _say(f"a reply outside any request, ignored: {quoted(line)}")
                return
            reply.request_id, reply.match_id = self.open.popitem(last=False)
        else:
            self.open.pop(reply.request_id, None)
        if reply.WhichOneof("choice") == "malformed":
            _say(f"request {reply.request_id}: {reply.malformed}")
        self.outbox.put(arena_pb2.BotMessage(reply=reply))

    async def read_program(self) -> None:
        """Forward the program's lines until it closes stdout; then the stream closes too."""
        assert self.program.stdout is not None
        try:
            while line := await self.program.stdout.readline():
                if line.strip():
                    self.on_line(line)
        except ValueError:  # a line over LINE_LIMIT_BYTES
            print("kingmaker bridge: the program wrote an over-long line; disconnecting", file=sys.stderr)
        else:
            await self._end_with_program()
        finally:
            self.outbox.put(None)

    async def _end_with_program(self) -> None:
        """The program closed its stdout: if it exited, end as it did, before the stream closes,
        so the server sees the process gone (a crash, and which) rather than a hang-up."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.program.wait(), PROGRAM_GONE_SECONDS)
        returncode = self.program.returncode
        if returncode is not None and not self.stopping and self.on_program_exit is not None:
            self.on_program_exit(returncode)

    def drain(self) -> None:
        """SIGTERM: take no new match, finish the one in play (a second SIGTERM: stop now)."""
        if self.draining:
            print("kingmaker bridge: stopping now", file=sys.stderr, flush=True)
            self.outbox.put(None)
            return
        self.draining = True
        print("kingmaker bridge: leaving after the match in play (SIGTERM again: now)", file=sys.stderr)
        self.outbox.put(arena_pb2.BotMessage(goodbye=arena_pb2.Goodbye()))


async def bridge(
    command: Sequence[str],
    server: str | None = None,
    token: str | None = None,
    games: Sequence[str] = (),
    on_program_exit: Callable[[int], None] | None = None,
    compact: bool = False,
) -> int:
    """Run ``command`` as a bot until the server or the program ends; return the program's exit
    status (``Popen.returncode``: negative for a signal).

    ``on_program_exit(returncode)`` is called as soon as the program exits by itself, before the
    stream is closed (``kingmaker bridge`` ends its own process there, the same way). ``compact``
    writes action requests in the compact form (``bridge_compact``). Raises
    ``ConnectionRefused`` when the server refuses the hello, and ``StreamEnded`` when it ends the
    stream with a status that is not OK.
    """
    load_game_messages()
    address = server_address(server)
    hello = arena_pb2.Hello(
        token=token or os.environ.get("KINGMAKER_TOKEN", ""),
        games=list(games),
        max_concurrent_matches=1,
        client=BRIDGE_CLIENT,
        protocol_version=PROTOCOL_VERSION,
        acknowledges_match_end=True,  # for the program, or in its place (``_end_given``)
    )
    program = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=LINE_LIMIT_BYTES,
    )
    state = _Bridge(program, on_program_exit, compact)
    state.outbox.put(arena_pb2.BotMessage(hello=hello))
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on this platform or thread
        loop.add_signal_handler(signal.SIGTERM, state.drain)
    reader = asyncio.ensure_future(state.read_program())
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ]
    try:
        async with grpc.aio.insecure_channel(address, options=options) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]  # generated
            call = stub.Play(state.outbox.messages())
            try:
                async for message in call:
                    await state.send_to_program(message)
            except grpc.aio.AioRpcError as error:
                if error.code() in REFUSED:
                    raise ConnectionRefused(error.details() or "the server refused the token") from None
                if error.code() != grpc.StatusCode.CANCELLED:
                    raise StreamEnded(f"{error.code().name}: {error.details()}") from None
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)
        state.stopping = True
        state.outbox.put(None)
        await _stop(program)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    return program.returncode or 0


def exit_as(returncode: int) -> None:
    """End this process as the program ended: with its exit code, or killed by its signal."""
    sys.stdout.flush()
    sys.stderr.flush()
    if returncode < 0:
        number = -returncode
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP have no handler to reset
            signal.signal(number, signal.SIG_DFL)
        with contextlib.suppress(OSError, ValueError):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
            os.kill(os.getpid(), number)
        os._exit(128 + number)  # a signal that does not kill: as a shell reports it
    os._exit(returncode)


async def _stop(program: asyncio.subprocess.Process) -> None:
    """Close the program's stdin, give it a moment to exit, then kill it."""
    if program.stdin is not None and not program.stdin.is_closing():
        program.stdin.close()
    try:
        await asyncio.wait_for(program.wait(), EXIT_WAIT_SECONDS)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            program.kill()
        await program.wait()
