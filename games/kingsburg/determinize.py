"""A Kingsburg state built from one seat's observation, for search bots (``Game.determinize``).

Kingsburg's only secret is the enemies deck: past years' cards are public, this year's card is
known to a seat that peeked (and to all once revealed in winter), later ones to nobody. So the
state is the observation read back, with the unknown cards drawn with the seed. The engine's
bookkeeping of who decides next in the current step (a queue of seats in turn order, the
influence cursor, the gift being given, the winter choices still owed) follows from the seat
that acts now and the public board.
"""

from __future__ import annotations

import random

from kingmaker.games.api import Action, GameState, Observation
from kingmaker.games.kingsburg.battle import Outcome, outcome
from kingmaker.games.kingsburg.data import YEARS, cards_of_year
from kingmaker.games.kingsburg.province import Province
from kingmaker.games.kingsburg.season import _town_hall_offers
from kingmaker.games.kingsburg.state import KingsburgState
from kingmaker.games.kingsburg.views import Decision, Phase
from kingmaker.games.rng import SeededRng


def determinize(observation: Observation, legal: tuple[Action, ...], seed: int) -> GameState:
    """A state ``observation`` and ``legal`` could come from, unknown enemies drawn with ``seed``."""
    view = observation
    chooser = random.Random(seed)
    deck = [chooser.randrange(len(cards_of_year(year))) for year in range(1, YEARS + 1)]
    for index, card in enumerate(view.past_enemies):
        deck[index] = cards_of_year(index + 1).index(card)
    if view.enemy is not None:
        deck[view.year - 1] = cards_of_year(view.year).index(view.enemy)
    state = KingsburgState(
        view.players,
        SeededRng(chooser.randrange(2**62)),
        turn_order=list(view.turn_order),
        enemy_deck=deck,
        start=False,
    )
    state.provinces = [
        Province(
            gold=p.gold,
            wood=p.wood,
            stone=p.stone,
            vp=p.vp,
            soldiers=p.soldiers,
            plus_two=p.plus_two,
            buildings=set(p.buildings),
            coloured=list(p.coloured_dice),
            white=list(p.white_dice),
            aid_die=p.aid_die,
            passed=p.passed,
            statue_used=p.statue_used,
            chapel_used=p.chapel_used,
            market_used=p.market_used,
            town_hall_used=p.town_hall_used,
            builds=p.builds_this_season,
            peeked_year=view.year if p.peeked_this_year else 0,
        )
        for p in view.provinces
    ]
    state.court = [[]] + [list(space.groups) for space in view.court]
    state.year = view.year
    state.phase = view.phase
    state.decision = view.decision
    state.acting = view.acting
    state.legal = legal
    state.gift_advisor = max(view.gift_advisor, 1)
    state.envoy_holder = view.envoy_holder
    state.king_die = view.king_die
    state.revealed = view.phase is Phase.WINTER
    state.past_enemies = list(view.past_enemies)
    if view.acting:
        _resume_step(state, view.acting[0])
    return state


def _resume_step(state: KingsburgState, seat: int) -> None:
    """Set the engine's bookkeeping so the step goes on after ``seat`` as the real one would."""
    after = state.turn_order[state.turn_order.index(seat) :]
    decision = state.decision
    if decision in (Decision.REROLL, Decision.CONSTRUCT, Decision.RECRUIT):
        state.queue = after
    elif decision is Decision.TOWN_HALL:
        state.queue = [seat] + [other for other in after[1:] if _town_hall_offers(state, other)]
    elif decision is Decision.INFLUENCE:
        state.cursor = state.turn_order.index(seat)
    elif decision is Decision.GIFT:
        owners = [group.owner for group in state.court[state.gift_advisor]]
        state.gift_group = owners.index(seat) + 1 if seat in owners else len(owners)
    elif decision in (Decision.BATTLE_REWARD, Decision.BATTLE_LOSS):
        enemy = state.enemy()
        amount = (
            enemy.reward_goods_of_choice if decision is Decision.BATTLE_REWARD else enemy.loss_goods_of_choice
        )
        state.battle_choices = [(seat, decision, amount)]
        for other in after[1:]:
            province = state.provinces[other]
            result = outcome(province, enemy)
            if result is Outcome.WIN and enemy.reward_goods_of_choice:
                state.battle_choices.append((other, Decision.BATTLE_REWARD, enemy.reward_goods_of_choice))
            elif result is Outcome.LOSS and 0 < enemy.loss_goods_of_choice < province.goods():
                state.battle_choices.append((other, Decision.BATTLE_LOSS, enemy.loss_goods_of_choice))
