"""Building a seat's observation from scratch, field by field.

Nothing in King's Road is secret between decisions: each hand is the eleven cards less the
Dragon and Witch that were revealed when used, and every other fact is on the table. A seat's
only secret is the play it is choosing, which exists only inside the joint ``apply``.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from kingmaker.games.api import GameState, Seat
from kingmaker.games.kings_road.board import Board
from kingmaker.games.kings_road.data import REGIONS
from kingmaker.games.kings_road.values import Card, Observation, Phase, PlayerView, RegionView, Reveal


class RoadTable(Protocol):
    """The parts of a game an observation is built from (``KingsRoadState`` has them); named
    here so that this module need not import the state, which imports it."""

    board: Board
    scores: list[int]
    hands: list[set[Card]]
    king: int
    round: int
    phase: Phase
    dragons: int
    revealed: list[Reveal]
    last_revealed: tuple[Reveal, ...]
    last_scored: tuple[int, ...]

    @property
    def players(self) -> int: ...

    def to_act(self) -> tuple[Seat, ...]: ...

    def cards_to_play(self, seat: Seat) -> int: ...


def build_observation(state: RoadTable, seat: int) -> Observation:
    board = state.board
    acting = seat in state.to_act()
    return Observation(
        seat=seat,
        players=state.players,
        phase=state.phase,
        round=state.round,
        king_region=state.king,
        permanent_nobles=board.permanent_nobles,
        regions=tuple(
            RegionView(
                number=facts.number,
                name=facts.name,
                values=facts.values,
                markers=tuple(board.markers[facts.number]),
                nobles=tuple(board.nobles[facts.number]),
            )
            for facts in REGIONS.values()
        ),
        standings=tuple(
            PlayerView(
                seat=other,
                score=state.scores[other],
                supply=board.supply[other],
                nobles=board.noble_count(other),
                has_dragon=Card.DRAGON in state.hands[other],
                has_witch=Card.WITCH in state.hands[other],
            )
            for other in range(state.players)
        ),
        hand=tuple(sorted(state.hands[seat], key=lambda card: card.value)),
        cards_to_play=state.cards_to_play(seat) if acting else 0,
        revealed=tuple(state.revealed),
        dragons=state.dragons,
        last_revealed=state.last_revealed,
        last_scored=state.last_scored,
    )


def spectator_view(state: GameState) -> Observation:
    """What a spectator sees: the board and every seat's public position; no hand (each is
    public in effect, see the package docstring, but it is a seat's own field) and no count of
    cards to play."""
    view: Observation = state.observation(0)
    return dataclasses.replace(view, seat=-1, hand=(), cards_to_play=0)
