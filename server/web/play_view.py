"""What a person's play page shows, as plain data: made from the seat's own observation, its
legal actions and the messages the server sent it, and nothing else (``seat_relay``'s state).
The actions are also given grouped and labelled (``play_choices``), each by its index.

The board is drawn by the replay's drawers from the seat's observation alone (``views`` holds
it in the person's seat and nothing in the others), so the page and its JSON can never carry
more than the seat was shown (tests/play/test_play_secrecy.py perturbs the other seats' secrets
and finds the view unchanged).
"""

from __future__ import annotations

import time
from typing import Any

from kingmaker.games import serial
from kingmaker.games.api import Action, Observation
from kingmaker.server.web.boards import draw_board
from kingmaker.server.web.play_choices import grouped_choices
from kingmaker.server.web.replay import action_text
from kingmaker.server.web.seat_relay import SeatState


def seat_view(
    game: str, seat: int, names: tuple[str, ...], observation: Observation | None, actions: tuple[Action, ...]
) -> dict[str, Any]:
    """The board and the choices of one seat, from its observation and legal actions only."""
    if observation is None:
        return {"observation": None, "svg": "", "actions": [], "groups": [], "marks": []}
    views = tuple(serial.to_data(observation) if number == seat else None for number in range(len(names)))
    return {
        "observation": views[seat],
        "svg": draw_board(game, views, seat, names, {}),
        "actions": [
            {"index": index, "text": action_text(action), "data": serial.to_data(action)}
            for index, action in enumerate(actions)
        ],
        **grouped_choices(game, actions),
    }


def table_view(state: SeatState) -> dict[str, Any]:
    """The whole page's data: the table, the seat's view, its clock and what it was told."""
    request = state.request
    observation = request.observation if request is not None else state.last_observation
    actions = request.actions if request is not None else ()
    bank_now = None
    if request is not None:  # what is left of the bank now (the page counts on from here)
        bank_now = max(0, request.bank_ms - int((time.monotonic() - request.received) * 1000))
    return {
        "version": state.version,
        "game": state.game,
        "match_id": state.match_id,
        "seat": state.seat,
        "names": list(state.names),
        "control": state.control,
        "request_id": request.request_id if request is not None else None,
        "bank_ms": bank_now,
        **seat_view(state.game, state.seat, state.names, observation, actions),
        "step": state.step,
        "moves": list(state.moves),
        "notes": list(state.notes),
        "end": state.end,
        "failure": state.failure,
    }
