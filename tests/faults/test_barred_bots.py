"""A suspended or disabled bot that connects is told why in one message, then its stream ends.

Before, a suspended bot was welcomed and then heard nothing (no error, no reason, no match), and a
disabled bot was told its valid token was "unknown or revoked". A bot suspended while connected
now hears why on its open stream too, once its matches in play are over."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import grpc
import pytest
from sqlmodel import select
from test_authentication import hello
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots
from kingmaker.ladder.storage.models import Bot
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.seats import sessions
from kingmaker.server.seats.sessions import BotSession, Identity
from kingmaker.v1 import arena_pb2

pytestmark = pytest.mark.faults

MISBEHAVING = (sys.executable, "-m", "kingmaker.sample_bots.faulty.misbehaving")
INSTANT = (sys.executable, "-m", "kingmaker.sample_bots.instant_bot")


def suspend(server: BackgroundServer, name: str) -> None:
    with server.server.db.transaction() as session:
        bot = session.exec(select(Bot).where(Bot.name == name)).one()
        bot.suspended_reason = "suspended after 3 faults in its last 5 matches; the last in match 7: crashed"
        session.add(bot)


def test_a_suspended_bot_is_told_why_and_how_to_be_reinstated(server: BackgroundServer) -> None:
    _, token = bots.register_bot(server.server.db, "faulty", ["kingdoms"])
    suspend(server, "faulty")
    error, status = hello(server.address, token)
    assert error.error.code == arena_pb2.ERROR_CODE_SUSPENDED  # type: ignore[attr-defined]
    assert "the last in match 7: crashed" in error.error.message  # type: ignore[attr-defined]
    assert "kingmaker bot reinstate faulty" in error.error.message  # type: ignore[attr-defined]
    assert status.code() == grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]
    bots.reinstate(server.server.db, "faulty")
    assert hello(server.address, token)[0].WhichOneof("message") == "welcome"  # type: ignore[attr-defined]


def test_a_disabled_bot_is_told_it_is_disabled_not_that_its_token_is_wrong(server: BackgroundServer) -> None:
    _, token = bots.register_bot(server.server.db, "resting", ["kingdoms"])
    bots.set_enabled(server.server.db, "resting", False)
    error, status = hello(server.address, token)
    assert error.error.code == arena_pb2.ERROR_CODE_DISABLED  # type: ignore[attr-defined]
    assert "disabled" in error.error.message and "token" not in error.error.message  # type: ignore[attr-defined]
    assert status.code() == grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]


def test_a_draining_stream_takes_no_new_match_and_ends_after_its_last() -> None:
    session = BotSession(Identity("leaving", bot_id=1), games=(), capacity=2)
    session.matches.add("m1")
    session.drain(arena_pb2.ERROR_CODE_SUSPENDED, "bot leaving is suspended")
    assert not session.has_room, "offered no new match, though it has room for one"
    assert session.outbox.empty(), "the match in play goes on"
    session.end_match("m1")
    error = session.outbox.get_nowait()
    assert error is not None and error.error.code == arena_pb2.ERROR_CODE_SUSPENDED
    assert session.outbox.get_nowait() is None, "then the stream ends"


def test_a_goodbye_drains_the_stream() -> None:
    session = BotSession(Identity("leaving", bot_id=1), games=(), capacity=1)
    session.matches.add("m1")
    session.on_message(arena_pb2.BotMessage(goodbye=arena_pb2.Goodbye()))
    assert not session.has_room and session.outbox.empty()
    session.end_match("m1")
    assert session.outbox.get_nowait() is None


def leaving_after_one_match(acknowledges: bool) -> BotSession:
    """A stream that said goodbye in its match, which has just sent that match's end."""
    session = BotSession(Identity("leaving", bot_id=1), (), 1, acknowledges_match_end=acknowledges)
    session.matches.add("m1")
    session.drain()
    session.send(arena_pb2.ServerMessage(match_end=arena_pb2.MatchEnd(match_id="m1")))
    session.end_match("m1")
    assert session.outbox.get_nowait().WhichOneof("message") == "match_end"  # type: ignore[union-attr]
    return session


def test_a_leaving_stream_that_promised_acknowledgments_ends_after_its_last_one() -> None:
    # Ending the call as the bot writes its MatchEndSeen failed that write, and gRPC's client then
    # reported INTERNAL in place of OK (CI: a bridge drained cleanly yet exited 1).
    async def scene() -> None:
        session = leaving_after_one_match(acknowledges=True)
        await asyncio.sleep(0.05)
        assert session.outbox.empty(), "the stream waits for the bot's last word"
        session.on_message(arena_pb2.BotMessage(match_end_seen=arena_pb2.MatchEndSeen(match_id="m2")))
        assert session.outbox.empty(), "an acknowledgment of another match is not it"
        session.on_message(arena_pb2.BotMessage(match_end_seen=arena_pb2.MatchEndSeen(match_id="m1")))
        assert session.outbox.get_nowait() is None, "then the stream ends"

    asyncio.run(scene())


def test_a_leaving_stream_waits_for_a_promised_acknowledgment_only_so_long(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sessions, "LAST_WORD_WAIT_S", 0.05)

    async def scene() -> None:
        session = leaving_after_one_match(acknowledges=True)
        assert await asyncio.wait_for(session.outbox.get(), 30) is None

    asyncio.run(scene())
    assert leaving_after_one_match(acknowledges=False).outbox.get_nowait() is None, "none promised: at once"


def test_a_bot_suspended_while_connected_hears_why_on_its_stream(server: BackgroundServer) -> None:
    db = server.server.db
    _, token = bots.register_bot(db, "illegal", ["kingdoms"])
    bots.register_bot(db, "sound", ["kingdoms"], command=list(INSTANT))
    environment = {
        **os.environ,
        "KINGMAKER_SERVER": server.address,
        "KINGMAKER_TOKEN": token,
        "FAULT_AFTER": "0",
    }
    bot = subprocess.Popen((*MISBEHAVING, "illegal"), env=environment, stderr=subprocess.PIPE, text=True)
    try:
        created = CliRunner().invoke(
            app,
            ["league", "create", "strict", "--game", "kingdoms", "--format", "ladder", "--bot=illegal",
             "--bot=sound", "--max-matches", "20", "--server", server.address],
        )  # fmt: skip
        assert created.exit_code == 0, created.output
        assert (
            CliRunner().invoke(app, ["league", "resume", "strict", "--server", server.address]).exit_code == 0
        )
        _, stderr = bot.communicate(timeout=240)  # it exits when its stream ends
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    suspension = bots.get_bot(db, "illegal").suspended_reason
    assert suspension is not None
    told = [line for line in stderr.splitlines() if "ERROR_CODE_SUSPENDED" in line]
    assert len(told) == 1 and suspension in told[0], stderr
    assert "kingmaker bot reinstate illegal" in told[0]
