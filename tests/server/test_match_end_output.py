"""What a launched bot prints as a match ends is that match's, even when the same (warm) process
plays the next match: a bot that acknowledges match ends (the Python SDK does) is waited for before
its match's part of the stderr is cut and before it is offered its next match (issue 47: "ruby-bot:
match 184 over" stood in match 185's log)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from kept_processes import two_matches_in_a_row

from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.sessions import BotSession, Identity
from kingmaker.v1 import arena_pb2

# It prints its pid with every line, so the test sees one process played both matches; it takes
# its time over a match's end, so the line comes long after the end was sent (before, the server
# cut the match's log as soon as it had sent the end).
TELLING_BOT = """
import os, sys, time
from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sdk import run


class Telling(RandomBot):
    def on_match_start(self, start):
        print(f"pid {os.getpid()}: match {start.match_id} starts", file=sys.stderr, flush=True)

    def on_match_end(self, end):
        time.sleep(1.0)
        print(f"pid {os.getpid()}: match {end.match_id} over", file=sys.stderr, flush=True)


run(Telling())
"""


def test_a_line_printed_at_a_matchs_end_stays_in_that_matchs_log(
    keeping_server: BackgroundServer, tmp_path: Path
) -> None:
    script = tmp_path / "telling_bot.py"
    script.write_text(TELLING_BOT)
    played = two_matches_in_a_row(keeping_server, [sys.executable, str(script)])
    lines = [stderr.splitlines() for _, stderr in played]
    assert len({line.split(":")[0] for match in lines for line in match}) == 1, f"one warm process: {lines}"
    # Each match's log holds its start and its end, in that order, and nothing of the other.
    told = [[line.split(": ", 1)[1].split() for line in match] for match in lines]
    assert [[words[2] for words in match] for match in told] == [["starts", "over"]] * 2, lines
    first_id, second_id = (match[0][1] for match in told)
    assert first_id != second_id
    assert all(words[1] == first_id for words in told[0]), lines
    assert all(words[1] == second_id for words in told[1]), lines


def launched_session(acknowledges: bool = True, launched: bool = True) -> BotSession:
    identity = Identity(bot="b", bot_id=1, launch_key="key" if launched else None)
    return BotSession(identity, (), 1, acknowledges_match_end=acknowledges)


def ended(session: BotSession, match_id: str) -> None:
    session.send(arena_pb2.ServerMessage(match_end=arena_pb2.MatchEnd(match_id=match_id)))


def seen(match_id: str) -> arena_pb2.BotMessage:
    return arena_pb2.BotMessage(match_end_seen=arena_pb2.MatchEndSeen(match_id=match_id))


def test_the_server_waits_only_for_an_end_it_sent_to_a_launched_bot_that_promised_to_acknowledge() -> None:
    async def scenario() -> list[object]:
        said = launched_session()
        ended(said, "m1")
        said.on_message(seen("m1"))  # before the server waits: still counts
        silent = launched_session()
        ended(silent, "m2")
        never_promised = launched_session(acknowledges=False)
        ended(never_promised, "m3")
        remote = launched_session(launched=False)
        ended(remote, "m4")
        remote.on_message(seen("m4"))  # ignored: no error, not counted as unasked
        closing = launched_session()
        ended(closing, "m5")
        waiting = asyncio.ensure_future(closing.match_end_seen("m5", 600.0))
        await asyncio.sleep(0)
        closing.close()  # the stream closed: nothing more will come, stop waiting
        return [
            await said.match_end_seen("m1", 600.0),
            await silent.match_end_seen("m2", 0.01),
            await never_promised.match_end_seen("m3", 600.0),
            await remote.match_end_seen("m4", 600.0),
            await asyncio.wait_for(waiting, 60.0),
            await said.match_end_seen("m1", 600.0),  # asked again: nothing is waiting now
            remote.outbox.qsize(),  # its match_end only, no error
        ]

    assert asyncio.run(scenario()) == [True, False, False, False, False, False, 1]
