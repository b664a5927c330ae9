"""The bytes of every message the referee sends in a seeded match, pinned: the referee's per-decision
path is tuned for speed (observations written directly, requests built from cached parts), and none
of that may change one byte a bot receives."""

from __future__ import annotations

import asyncio
import hashlib

import pytest

from kingmaker.games.registry import get_game
from kingmaker.server.refereeing.referee import Referee, SeatState
from kingmaker.server.seats.deadlines import SeatClock, TimeControl
from kingmaker.server.seats.sessions import BotSession, Identity
from kingmaker.v1 import arena_pb2

SENT = {
    # (game, seed): sha256 of every message each seat was sent, in order (as main sent them at 1f5ccda)
    ("kingdoms", 3): "3a6da6cb995677b97eb78432e79a3a0d344aee8894ba4632109342b4521388e8",
    ("kings_road", 3): "f69387a247f0cfe784fa0fad623ea9559f44e023d48c8c8aea210ee75ce57bd4",
    ("kingsburg", 3): "1a2d582b56e2186068831302fde0d2dd3387317992fd516cfec944afb2baff03",
    ("kingsville", 3): "2fcf825873ae051de4d06bc2678f4d0bf6692f1e386c105478f39d54a280e68e",
}


async def _bot(session: BotSession, sent: list[bytes], turn: list[int]) -> None:
    """Answers each request with a legal action that varies with the turn, as the stream would."""
    while (message := await session.outbox.get()) is not None:
        sent.append(message.SerializeToString(deterministic=True))  # (a map's order is not fixed)
        if message.WhichOneof("message") == "action_request":
            request = message.action_request
            turn[0] += 1
            reply = arena_pb2.ActionReply(
                match_id=request.match_id,
                request_id=request.request_id,
                legal_action_index=turn[0] % len(request.legal_actions),
            )
            session.on_message(
                arena_pb2.BotMessage.FromString(arena_pb2.BotMessage(reply=reply).SerializeToString())
            )


async def _sent_in(game_name: str, seed: int) -> str:
    game = get_game(game_name)
    control = TimeControl(decision_ms=1000, bank_ms=5000, increment_ms=100)
    players = game.spec.min_players
    sessions = [BotSession(Identity(f"bot-{seat}", bot_id=seat + 1), (), 1) for seat in range(players)]
    sent: list[list[bytes]] = [[] for _ in sessions]
    turn = [0]
    bots = [asyncio.ensure_future(_bot(session, sent[seat], turn)) for seat, session in enumerate(sessions)]
    books = [SeatState(session.bot, session, SeatClock(control)) for session in sessions]
    report = await Referee(f"m{seed}", game, seed, {}, books, control).run()
    for session in sessions:
        session.finish()
    await asyncio.gather(*bots)
    assert all(seat.strikes == 0 for seat in report.seats)
    digest = hashlib.sha256()
    for messages in sent:
        for message in messages:
            digest.update(len(message).to_bytes(4, "big") + message)
    return digest.hexdigest()


@pytest.mark.parametrize(("game_name", "seed"), list(SENT))
def test_the_messages_of_a_seeded_match_are_the_bytes_they_always_were(game_name: str, seed: int) -> None:
    assert asyncio.run(_sent_in(game_name, seed)) == SENT[(game_name, seed)]
