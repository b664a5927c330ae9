"""Issue 43, finding 1: an author who disabled their own bot mid-match (``bot disable``, their
right) voided the match: the seat ended "aborted: bot X was disabled", nobody was rated, and the
league played the seed again, which the author's remote bot had now seen; re-enabled two seconds
later, the bot played on. The same with ``bot rotate-token``. A loss could be dodged at will.

Now an author's action never changes a result under way: disabling, removing, rotating the token
or leaving the league takes the bot out of every match to come, while the match it is in plays
out and is rated like any other; its stream ends after it, saying why. Only the admin voids (the
admin's disable still ends the seat at once: tests/leagues/test_trustworthy_results.py).
Through a real server, a remote bot process and a league match."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable

import grpc
import pytest
from leagues.test_trustworthy_results import connected_bot, patient_server  # noqa: F401 (a fixture)

from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.history import list_matches, match_summary
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings import standings
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.background import BackgroundServer
from kingmaker.server.scheduling.rated import play_ticket
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

pytestmark = pytest.mark.faults

# Per action: the call, its request, and whether it ends the bot's stream (after the match).
ACTIONS: dict[str, tuple[str, Callable[[], object], bool]] = {
    "disable": ("SetBotEnabled", lambda: admin_pb2.SetBotEnabledRequest(name="steady", enabled=False), True),
    "rotate-token": ("RotateToken", lambda: admin_pb2.RotateTokenRequest(name="steady"), True),
    "remove": ("RemoveBot", lambda: admin_pb2.RemoveBotRequest(name="steady"), True),
    "leave": ("LeaveLeague", lambda: admin_pb2.LeagueMemberRequest(name="ladder", bot="steady"), False),
}


DECISION_MS = 60_000
"""Far longer than the author's call can take: the held bot is never late."""


@pytest.mark.parametrize("action", list(ACTIONS))
def test_an_authors_action_mid_match_leaves_the_result_to_the_game(
    patient_server: BackgroundServer,  # noqa: F811 (the fixture imported above)
    action: str,
) -> None:
    # A patient server: the launched opponent has a minute to say hello. With 3 s, a loaded
    # machine's slow start of it ended its seat NEVER_CONNECTED, which is not what is tested here.
    db = patient_server.server.db
    ann, token = authors.add_author(db, "ann")
    bots.register_bot(db, "steady", ["kingdoms"], author_id=ann.id)
    random_bot = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
    bots.register_bot(db, "other", ["kingdoms"], command=random_bot)
    league = create_league(db, "ladder", "kingdoms", ["steady", "other"], format="ladder", seed=4)
    (ticket,) = next_matches(db, league.id, 1)
    method, request, ends_stream = ACTIONS[action]
    with connected_bot(patient_server, "steady", [], pause=0.05) as process:
        pool = patient_server.server.pool
        (stream,) = [s for s in list(pool.sessions) if s.bot == "steady"]
        ticket = mark_running(db, ticket.match_id)
        playing = asyncio.run_coroutine_threadsafe(
            play_ticket(db, patient_server.server.roster, ticket, TimeControl(decision_ms=DECISION_MS)),
            patient_server.loop,
        )
        deadline = time.monotonic() + 30
        while not stream.matches:
            assert time.monotonic() < deadline, "the match did not start"
            time.sleep(0.05)
        # The bot is held still while its author acts, so the match is surely under way when the
        # call returns, however slowly a loaded machine answers it (the decision limit outlasts it).
        os.kill(process.pid, signal.SIGSTOP)
        try:
            with grpc.insecure_channel(patient_server.address) as channel:  # as the author, mid-match
                getattr(admin_pb2_grpc.AdminStub(channel), method)(
                    request(), metadata=(("authorization", f"Bearer {token}"),)
                )
            assert stream.matches, "the match ended with the author's action"
            assert not stream.has_room, "the bot is offered no new match"
        finally:
            os.kill(process.pid, signal.SIGCONT)
        playing.result(timeout=120)
        if ends_stream:  # its stream ends once the match is over
            deadline = time.monotonic() + 30
            while stream in pool.sessions:
                assert time.monotonic() < deadline, "the stream outlived its match"
                time.sleep(0.05)
    summary = match_summary(db, ticket.match_id)
    # Before the fix: seat ABORTED ("bot steady was disabled"), the match VOID and unrated.
    assert summary.status == MatchStatus.FINISHED, summary.status_reason
    assert [seat.end_reason for seat in summary.seats] == [EndReason.FINISHED] * 2
    assert summary.rated
    assert all(row.faults == 0 for row in standings.standings(db, "kingdoms"))
    # Nothing of it is played again: its seed is in no other match of the league.
    twins = [m for m in list_matches(db, league="ladder") if m.seed == ticket.seed]
    assert [m.match_id for m in twins] == [ticket.match_id]
