"""A person's seat through the server's ``Play`` stream (the relay the website and the terminal
use): a full match stored and marked, a click refused with nothing changed, a person who leaves
or lets the clock run out loses their seat and the bots finish with no fault."""

from __future__ import annotations

import random
import time

import pytest
from play_support import WAIT, Table, play_randomly, setup, stored

from kingmaker.server.web.seat_relay import Refused, SeatRelay


def test_a_person_plays_a_full_match_of_kingdoms(table: Table) -> None:
    relay = SeatRelay(table.client, table.ann, setup("kingdoms", 2))
    state = play_randomly(relay, random.Random(1))
    assert state.end is not None and not state.failure, state.failure
    assert state.end["end_reason"] == "finished"
    assert state.names == ("person:ann", "rando", "randa")
    match = stored(table, state.match_id)
    assert not match.rated
    assert match.status_reason.startswith("with people: person:ann")
    assert match.reasons == ["finished"] * 3


def test_a_stale_or_illegal_click_is_refused_and_changes_nothing(table: Table) -> None:
    relay = SeatRelay(table.client, table.ann, setup("kingdoms", 1))
    state = relay.wait(0, WAIT)
    while state.request is None:
        state = relay.wait(state.version, WAIT)
    request = state.request
    with pytest.raises(Refused, match="not one of the"):
        relay.answer(request.request_id, len(request.actions))
    with pytest.raises(Refused, match="is not open"):
        relay.answer(request.request_id + 1, 0)
    assert relay.state.request is request  # still open, still the same
    state = play_randomly(relay, random.Random(2))
    assert state.end is not None and state.end["end_reason"] == "finished"
    assert not state.notes, state.notes  # the referee never struck the person


def test_a_person_who_leaves_loses_the_seat_and_the_bots_finish(table: Table) -> None:
    relay = SeatRelay(table.client, table.ann, setup("kingdoms", 2))
    state = relay.wait(0, WAIT)
    while state.request is None:
        state = relay.wait(state.version, WAIT)
    match_id = state.match_id
    relay.leave()
    match = stored(table, match_id)
    assert match.reasons == ["disconnected", "finished", "finished"]


def test_a_clock_that_runs_out_costs_the_seat_and_nothing_else(table: Table) -> None:
    relay = SeatRelay(table.client, table.ann, setup("kingdoms", 1, bank_ms=1500))
    state = relay.wait(0, WAIT)
    deadline = time.monotonic() + WAIT
    while not relay.over and time.monotonic() < deadline:
        state = relay.wait(state.version, 5.0)  # never answering
    assert state.end is not None and state.end["end_reason"] == "timeout", state
    assert state.control == {"bank_ms": 1500, "increment_ms": 1000}
    match = stored(table, state.match_id)
    assert match.reasons == ["timeout", "finished"]
