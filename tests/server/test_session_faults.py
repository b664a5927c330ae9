"""A stream closed for a protocol fault (flooding, an undecodable message) takes nothing more from
the bot, yet stays open until every match it is in has told it how it ended; a stream closed for
any other reason ends at once. Before, a flooded stream ended at once with status OK, and the bot
never learnt how its matches ended, though docs/protocol.md said it would."""

from __future__ import annotations

import asyncio

from kingmaker.server.seats.sessions import UNSOLICITED_LIMIT, BotSession, Identity
from kingmaker.v1 import arena_pb2


def session_in(*matches: str) -> BotSession:
    session = BotSession(Identity("flooder", bot_id=1), games=(), capacity=len(matches))
    session.matches.update(matches)
    return session


def flood(session: BotSession) -> None:
    stray = arena_pb2.BotMessage(reply=arena_pb2.ActionReply(match_id="m1", request_id=99))
    for _ in range(UNSOLICITED_LIMIT + 1):
        session.on_message(stray)


def drained(session: BotSession) -> list[str]:
    """What the stream would still send, by kind ("end" for the end of the stream)."""
    sent = []
    while not session.outbox.empty():
        message = session.outbox.get_nowait()
        sent.append("end" if message is None else str(message.WhichOneof("message")))
    return sent


def match_end(match_id: str) -> arena_pb2.ServerMessage:
    return arena_pb2.ServerMessage(match_end=arena_pb2.MatchEnd(match_id=match_id))


def test_a_flooded_stream_tells_each_match_its_end_and_then_ends() -> None:
    session = session_in("m1", "m2")
    flood(session)
    assert session.closed.is_set() and session.fault_code == arena_pb2.ERROR_CODE_FLOODING
    assert drained(session)[-1] == "error"  # the FLOODING error, and the stream is still open
    flood(session)  # what it sends now is not even read
    assert drained(session) == []
    session.send(match_end("m1"))
    session.end_match("m1")
    assert drained(session) == ["match_end"], "open while m2 goes on"
    session.send(match_end("m2"))
    session.end_match("m2")
    assert drained(session) == ["match_end", "end"]
    session.send(match_end("m3"))
    assert drained(session) == [], "nothing after the end"


def test_a_closed_stream_is_asked_nothing_more() -> None:
    async def ask_after_the_fault() -> bool:
        session = session_in("m1")
        flood(session)
        request = arena_pb2.ActionRequest(match_id="m1")
        answer = await asyncio.wait_for(session.ask(request, wait_seconds=60), timeout=10)
        return answer.reply is None and answer.closed

    assert asyncio.run(ask_after_the_fault())


def test_a_stream_closed_without_a_fault_ends_at_once_and_finish_always_ends() -> None:
    quiet = session_in("m1")
    quiet.close()  # the bot closed its end: nothing to wait for
    assert drained(quiet) == ["end"]
    flooded = session_in("m1")
    flood(flooded)
    drained(flooded)
    flooded.finish()  # the server stops, or the match's lease is released
    assert drained(flooded) == ["end"]


def test_a_late_reply_is_late_never_flooding_and_the_count_is_per_match() -> None:
    async def scenario() -> list[str]:
        session = session_in("m1")
        told = []
        for match in range(3 * UNSOLICITED_LIMIT):
            match_id = f"m{match}"
            session.matches.add(match_id)
            request = arena_pb2.ActionRequest(match_id=match_id)
            answer = await session.ask(request, wait_seconds=0.001)  # the wait runs out
            assert answer.reply is None and not answer.closed
            late = arena_pb2.ActionReply(match_id=match_id, request_id=request.request_id)
            session.on_message(arena_pb2.BotMessage(reply=late))
            session.on_message(arena_pb2.BotMessage(reply=late))  # answered twice: unsolicited
            session.end_match(match_id)
            while not session.outbox.empty():
                message = session.outbox.get_nowait()
                if message is not None and message.WhichOneof("message") == "error":
                    told.append(message.error.message)
        assert not session.closed.is_set(), session.fault
        return told

    told = asyncio.run(scenario())
    assert sum("came after its deadline" in text for text in told) == 3 * UNSOLICITED_LIMIT
    assert sum("already answered" in text for text in told) == 3 * UNSOLICITED_LIMIT


def test_more_than_the_limit_within_one_match_still_floods() -> None:
    session = session_in("m1")
    flood(session)
    assert session.fault_code == arena_pb2.ERROR_CODE_FLOODING
