"""A late strike names the limit the bot was told, bank included, though the charge spends the bank.

The referee writes the limit's words only when it strikes (not for every reply), so they must
come from the bank as it stood when the request went out, not as the charge or the expiry left it.
"""

from __future__ import annotations

import asyncio

from kingmaker.games.registry import get_game
from kingmaker.server.refereeing.referee import Referee, SeatState
from kingmaker.server.seats.deadlines import SeatClock, TimeControl
from kingmaker.server.seats.sessions import Answer
from kingmaker.v1 import arena_pb2

CONTROL = TimeControl(decision_ms=100, bank_ms=50, max_strikes=5)


def _judged(answer: Answer) -> SeatState:
    book = SeatState("slow", None, SeatClock(CONTROL))
    referee = Referee("m", get_game("kingdoms"), 1, {}, [book], CONTROL)
    legal = get_game("kingdoms").new(2, 1, {}).legal_actions(0)
    action = asyncio.run(referee._judge(book, 7, answer, legal))
    assert action is None
    return book


def test_a_reply_over_the_bank_is_struck_with_the_bank_it_was_told() -> None:
    reply = arena_pb2.ActionReply(match_id="m", request_id=7, legal_action_index=0)
    book = _judged(Answer(reply, elapsed_ms=400.0))
    assert book.clock.bank_ms == 0  # the charge spent it
    assert [strike.kind for strike in book.strike_log] == ["late"]
    text = book.strike_log[0].detail
    told = "the decision's 100 ms limit plus its 50 ms bank by the wall clock"
    assert text == f"the reply took 400 ms, over {told}"


def test_no_reply_is_struck_with_the_bank_it_was_told() -> None:
    book = _judged(Answer(None, elapsed_ms=250.0))
    assert book.clock.bank_ms == 0  # the expiry spent it
    text = book.strike_log[0].detail
    told = "the decision's 100 ms limit plus its 50 ms bank by the wall clock"
    assert text.startswith(f"no reply within {told} (the server waited 250 ms)")
