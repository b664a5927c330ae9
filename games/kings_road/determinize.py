"""A King's Road state built from one seat's observation, for search bots (``Game.determinize``).

King's Road hides nothing between decisions (see ``observation.py``), so the state is the
observation read back: the seed is not needed.
"""

from __future__ import annotations

from kingmaker.games.api import Action, GameState, Observation
from kingmaker.games.kings_road.state import KingsRoadState
from kingmaker.games.kings_road.values import Card, Phase


def determinize(observation: Observation, legal: tuple[Action, ...], seed: int) -> GameState:
    """The one state ``observation`` can come from."""
    del legal, seed
    view = observation
    state = KingsRoadState(view.players, permanent_nobles=view.permanent_nobles)
    for region in view.regions:
        state.board.markers[region.number] = list(region.markers)
        state.board.nobles[region.number] = list(region.nobles)
    state.board.supply = [player.supply for player in view.standings]
    state.scores = [player.score for player in view.standings]
    state.hands = []
    for player in view.standings:
        hand = set(Card)
        if not player.has_dragon:
            hand.discard(Card.DRAGON)
        if not player.has_witch:
            hand.discard(Card.WITCH)
        state.hands.append(hand)
    state.king = view.king_region
    state.round = view.round
    state.phase = view.phase
    state.dragons = view.dragons
    state.revealed = list(view.revealed)
    state.last_revealed = view.last_revealed
    state.last_scored = view.last_scored
    if view.phase is Phase.WITCH_RECHOOSE:
        state.witch_seats = tuple(reveal.seat for reveal in view.revealed if reveal.cards == (Card.WITCH,))
    return state
