"""A bridged program's line at a match's end stays in that match's log, as a gRPC kit's does
(issue 47): the program promises on its first line to acknowledge match ends, and does once it
has printed its line; the bridge passes that on, and the server waits for it before it cuts the
log of a process it keeps for the next match. A program that never promises (every bridged bot
written before) is acknowledged by the bridge itself, so it is never waited for."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from kept_processes import two_matches_in_a_row
from protocol_support import AWK_BOT

from kingmaker.sdk.bridge import _Bridge
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.sessions import BotSession
from kingmaker.v1 import arena_pb2

from support import REPO

# Takes its time over a match's end, so its line comes long after the end was sent (before, the
# server cut the match's log as soon as it had sent the end); its pid shows one process played both.
SLOW_TELLER = """
import json, os, sys, time
print(json.dumps({"hello": {"acknowledgesMatchEnd": True}}), flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if "matchStart" in message:
        match_id = message["matchStart"]["matchId"]
        print(f"pid {os.getpid()}: match {match_id} starts", file=sys.stderr, flush=True)
    elif "actionRequest" in message:
        print(json.dumps({"legalActionIndex": 0}), flush=True)
    elif "matchEnd" in message:
        time.sleep(1.0)
        match_id = message["matchEnd"]["matchId"]
        print(f"pid {os.getpid()}: match {match_id} over", file=sys.stderr, flush=True)
        print(json.dumps({"matchEndSeen": {}}), flush=True)  # no id: the oldest end unacknowledged
"""


def bridged(*arguments: str) -> list[str]:
    """``kingmaker bridge ARGUMENTS...`` as the server starts a JSON-lines bot (its own Python: the
    venv's ``kingmaker`` script names an interpreter a bot's own user may not reach, unjailed)."""
    return [sys.executable, "-m", "kingmaker", "bridge", *arguments]


EXAMPLES = {
    "perl": ("perl bot: match {} over", ["--compact", "--", "perl", str(REPO / "sample_bots/perl/bot.pl")]),
    "php": ("php bot: match {} over", ["--", "php", str(REPO / "sample_bots/php/bot.php")]),
}
"""Each example's line at a match's end, and its bridge's arguments (tests/protocol/test_example_bots.py)."""


@pytest.fixture
def teller_acknowledged(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each end of the teller's matches was acknowledged (False: the server waited for
    nothing until ``END_SEEN_WAIT_S``)."""
    said: list[bool] = []
    wait = BotSession.match_end_seen

    async def recorded(session: BotSession, match_id: str, timeout: float) -> bool:
        seen = await wait(session, match_id, timeout)
        if session.bot == "teller":
            said.append(seen)
        return seen

    monkeypatch.setattr(BotSession, "match_end_seen", recorded)
    return said


def test_a_bridged_programs_line_at_a_matchs_end_stays_in_that_matchs_log(
    keeping_server: BackgroundServer, teller_acknowledged: list[bool], tmp_path: Path
) -> None:
    script = tmp_path / "slow_teller.py"
    script.write_text(SLOW_TELLER)
    played = two_matches_in_a_row(keeping_server, bridged("--", sys.executable, str(script)))
    lines = [stderr.splitlines() for _, stderr in played]
    assert len({line.split(":")[0] for match in lines for line in match}) == 1, f"one kept process: {lines}"
    told = [[line.split(": ", 1)[1].split() for line in match] for match in lines]
    assert [[words[2] for words in match] for match in told] == [["starts", "over"]] * 2, lines
    for (match_id, _), match in zip(played, told, strict=True):
        assert all(words[1] == str(match_id) for words in match), lines
    assert teller_acknowledged == [True, True], "the program's acknowledgements reached the server"


@pytest.mark.parametrize("language", sorted(EXAMPLES))
def test_the_example_bots_line_at_a_matchs_end_stays_in_that_matchs_log(
    keeping_server: BackgroundServer, teller_acknowledged: list[bool], language: str
) -> None:
    if shutil.which(language) is None:
        pytest.skip(f"{language} is not installed (scripts/install-system-deps installs it)")
    line, arguments = EXAMPLES[language]
    (first, first_log), (second, second_log) = two_matches_in_a_row(keeping_server, bridged(*arguments))
    assert line.format(first) in first_log, first_log
    assert line.format(second) in second_log, second_log
    assert line.format(first) not in second_log, second_log
    assert teller_acknowledged == [True, True]


def test_a_bridged_program_that_never_promises_plays_on_unwaited(
    keeping_server: BackgroundServer, teller_acknowledged: list[bool]
) -> None:
    """The awk bot knows nothing of match ends: the bridge acknowledges each in its place as soon
    as it has written it, so the server does not wait for it, and its kept process plays on."""
    awk = shutil.which("awk")
    if awk is None:
        pytest.skip("awk is not installed")
    interactive = ["-W", "interactive"] if "mawk" in Path(awk).resolve().name else []
    played = two_matches_in_a_row(keeping_server, bridged("--", awk, *interactive, "-f", str(AWK_BOT)))
    assert len(played) == 2
    assert teller_acknowledged == [True, True], "acknowledged by the bridge, not waited for"


def test_the_bridge_acknowledges_for_a_program_only_until_it_promises() -> None:
    def end(match_id: str) -> arena_pb2.ServerMessage:
        return arena_pb2.ServerMessage(match_end=arena_pb2.MatchEnd(match_id=match_id))

    async def scenario() -> list[str]:
        program = await asyncio.create_subprocess_exec(
            "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL
        )
        state = _Bridge(program)
        await state.send_to_program(end("m1"))  # no promise yet: the bridge says it was seen
        state.on_line(b'{"hello": {"acknowledgesMatchEnd": true}}\n')
        await state.send_to_program(end("m2"))  # promised: the program says it, below
        await state.send_to_program(end("m3"))
        state.on_line(b'{"matchEndSeen": {"matchId": "m3"}}\n')
        state.on_line(b'{"matchEndSeen": {}}\n')  # the oldest not acknowledged: m2
        state.on_line(b'{"matchEndSeen": {}}\n')  # none left: ignored
        assert program.stdin is not None
        program.stdin.close()
        await program.wait()
        said = []
        while not state.outbox.queue.empty():
            message = state.outbox.queue.get_nowait()
            assert message is not None and message.WhichOneof("message") == "match_end_seen"
            said.append(message.match_end_seen.match_id)
        return said

    assert asyncio.run(scenario()) == ["m1", "m3", "m2"]


def test_nothing_is_sent_once_the_server_closes_the_stream_for_flooding() -> None:
    """After ``FLOODING`` the server reads nothing more, sends the match's end and ends the call:
    the bridge's acknowledgement of that end, written as the call ended, made gRPC's asyncio
    client report ``INTERNAL: Internal error from Core`` in place of the server's
    ``RESOURCE_EXHAUSTED`` (a full run's misbehaviour conformance test, under load). Nothing is
    sent after the error, the program's replies and the acknowledgement included."""

    async def scenario() -> list[str]:
        program = await asyncio.create_subprocess_exec(
            "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL
        )
        state = _Bridge(program)
        sent: list[str] = []

        async def send() -> None:  # as gRPC takes the call's requests: each as soon as it is put
            async for message in state.outbox.messages():
                sent.append(str(message.WhichOneof("message")))

        sending = asyncio.ensure_future(send())
        request = arena_pb2.ActionRequest(match_id="m1", request_id=3)
        await state.send_to_program(arena_pb2.ServerMessage(action_request=request))
        state.on_line(b'{"legalActionIndex": 0}\n')  # sent: the stream is open
        await asyncio.sleep(0.05)
        flooding = arena_pb2.Error(code=arena_pb2.ERROR_CODE_FLOODING, match_id="m1")
        await state.send_to_program(arena_pb2.ServerMessage(error=flooding))
        state.on_line(b'{"legalActionIndex": 0}\n')  # after it: dropped
        await state.send_to_program(arena_pb2.ServerMessage(match_end=arena_pb2.MatchEnd(match_id="m1")))
        state.outbox.put(None)
        await asyncio.wait_for(sending, 60)
        assert program.stdin is not None
        program.stdin.close()
        await program.wait()
        return sent

    assert asyncio.run(scenario()) == ["reply"]
