"""The course of a King's Road game: choose, reveal, Witch re-choice, scoring, the King travels.

One round is one joint decision of every seat (``Phase.CHOOSE_CARDS``), followed by a second
joint decision of the seats that played the Witch, if any (``Phase.WITCH_RECHOOSE``). Scoring,
the King's move and the end of the game happen inside the ``apply`` that completes the round.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Self

from kingmaker.games.api import Action, GameSpec, GameState, OptionSpec, Result, Seat, ranks_from_keys
from kingmaker.games.kings_road.board import Board
from kingmaker.games.kings_road.data import (
    CARDS_PER_ROUND,
    ROUND_LIMIT,
    ROUTE,
    START_REGION,
    WINNING_SCORE,
    next_on_route,
    route_from,
)
from kingmaker.games.kings_road.observation import build_observation
from kingmaker.games.kings_road.plays import legal_plays, place_markers
from kingmaker.games.kings_road.scoring import score_region
from kingmaker.games.kings_road.values import Card, Observation, Phase, PlayCards, Reveal

PERMANENT_NOBLES = "permanent_nobles"

SPEC = GameSpec(
    name="kings_road",
    title="King's Road",
    edition="kingmaker-1",
    min_players=2,
    max_players=5,
    chance=False,
    hidden_information=False,
    simultaneous=True,
    action_types=(PlayCards,),
    observation_type=Observation,
    # A round is at most two decisions and the game ends by round ROUND_LIMIT at the latest.
    max_decisions=2 * ROUND_LIMIT,
    options=(
        OptionSpec(
            PERMANENT_NOBLES,
            False,
            "Permanent Nobles variant: nobles stay until the end and stack, one per player per region",
            (False, True),
        ),
    ),
)


class KingsRoadState(GameState):
    """A King's Road game in progress."""

    spec = SPEC

    def __init__(self, players: int, permanent_nobles: bool = False) -> None:
        self.board = Board(players, permanent_nobles)
        self.scores = [0] * players
        self.hands: list[set[Card]] = [set(Card) for _ in range(players)]
        self.king = START_REGION
        self.round = 1
        self.phase = Phase.CHOOSE_CARDS
        self.witch_seats: tuple[Seat, ...] = ()
        self.dragons = 0
        self.revealed: list[Reveal] = []
        self.last_revealed: tuple[Reveal, ...] = ()
        self.last_scored: tuple[int, ...] = ()

    @property
    def players(self) -> int:
        return self.board.players

    def to_act(self) -> tuple[Seat, ...]:
        if self.phase is Phase.CHOOSE_CARDS:
            return tuple(range(self.players))
        if self.phase is Phase.WITCH_RECHOOSE:
            return self.witch_seats
        return ()

    def cards_to_play(self, seat: Seat) -> int:
        """Three cards, or as many as the seat has markers in supply."""
        return min(CARDS_PER_ROUND, self.board.supply[seat])

    def legal_actions(self, seat: Seat) -> tuple[Action, ...]:
        if seat not in self.to_act():
            return ()
        return legal_plays(frozenset(self.hands[seat]), self.cards_to_play(seat))

    def apply(self, actions: Mapping[Seat, Action]) -> None:
        self.check_joint_action(actions)
        witches: list[Seat] = []
        for seat in sorted(actions):
            cards = actions[seat].cards
            if cards == (Card.WITCH,):
                # Revealed first; the seat plays again once everyone else has resolved.
                self.hands[seat].discard(Card.WITCH)
                self.revealed.append(Reveal(seat, cards))
                witches.append(seat)
            else:
                self._resolve(seat, cards)
        if witches:
            self.phase = Phase.WITCH_RECHOOSE
            self.witch_seats = tuple(witches)
            return
        self._end_round()

    def _resolve(self, seat: Seat, cards: tuple[Card, ...]) -> None:
        place_markers(self.board, seat, cards)
        if Card.DRAGON in cards:
            self.hands[seat].discard(Card.DRAGON)
            self.dragons += 1
        self.revealed.append(Reveal(seat, cards))

    def _end_round(self) -> None:
        scored = route_from(self.king, 1 + self.dragons)
        for region in scored:
            self._add(score_region(self.board, region))
        self.king = next_on_route(scored[-1])
        self.last_revealed = tuple(self.revealed)
        self.revealed = []
        self.dragons = 0
        self.witch_seats = ()
        if max(self.scores) >= WINNING_SCORE or self.round >= ROUND_LIMIT:
            final = tuple(region for region in route_from(self.king, len(ROUTE)) if region not in scored)
            for region in final:
                self._add(score_region(self.board, region, with_nobles=False))
            self.last_scored = scored + final
            self.phase = Phase.GAME_OVER
        else:
            self.last_scored = scored
            self.round += 1
            self.phase = Phase.CHOOSE_CARDS

    def _add(self, points: list[int]) -> None:
        for seat, gained in enumerate(points):
            self.scores[seat] += gained

    def clone(self) -> Self:
        """A faster copy than ``deepcopy`` (search bots clone per simulated move): cards,
        reveals and tuples are immutable, so only the board and the lists and sets are copied."""
        other = copy.copy(self)
        other.board = self.board.copy()
        other.scores = list(self.scores)
        other.hands = [set(hand) for hand in self.hands]
        other.revealed = list(self.revealed)
        return other

    def observation(self, seat: Seat) -> Observation:
        return build_observation(self, seat)

    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def result(self) -> Result:
        if not self.is_over():
            raise ValueError("the game is not over")
        keys: list[tuple[int, ...]] = [
            (self.scores[seat], self.board.noble_count(seat)) for seat in range(self.players)
        ]
        return Result(scores=tuple(self.scores), ranks=ranks_from_keys(keys))
