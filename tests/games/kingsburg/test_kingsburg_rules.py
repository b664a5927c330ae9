"""Each rule of Kingsburg shown enforced, from constructed positions."""

from __future__ import annotations

from kingsburg_helpers import ANN, BRIAN, CINDY, DAVID, dice, position

from kingmaker.games.api import RulesError
from kingmaker.games.kingsburg import GAME, season
from kingmaker.games.kingsburg.actions import Influence, LoseGoods, Pass, TakeGoods
from kingmaker.games.kingsburg.data import GENERAL, SMUGGLER, Building, cards_of_year
from kingmaker.games.kingsburg.gifts import give_gift
from kingmaker.games.kingsburg.state import KingsburgState
from kingmaker.games.kingsburg.views import Decision, DiceGroup, Phase


def _targets(state: KingsburgState, seat: int) -> set[int]:
    legal = state.legal_actions(seat)
    return {a.advisor for a in legal if isinstance(a, Influence)}


def _alone_influencing(coloured: list[int], white: list[int], tokens: int = 0) -> KingsburgState:
    state = position(players=3)
    me = state.provinces[0]
    me.coloured, me.white, me.plus_two = coloured, white, tokens
    state.provinces[1].passed = state.provinces[2].passed = True
    season.begin_influence(state)
    return state


def test_white_dice_never_influence_alone_but_may_join_a_coloured_die() -> None:
    state = _alone_influencing([1], [2, 3])
    assert _targets(state, 0) == {1, 3, 4, 6}  # 1, 1+2, 1+3, 1+2+3; never 2, 3 or 5 alone
    assert Influence(6, (1,), (2, 3), False, 0, False) in state.legal_actions(0)


def test_only_one_plus_two_token_per_group() -> None:
    state = _alone_influencing([1], [], tokens=3)
    assert _targets(state, 0) == {1, 3}
    state.apply({0: Influence(3, (1,), (), True, 0, False)})
    assert state.provinces[0].plus_two == 2


def test_an_influenced_advisor_is_closed_without_the_envoy() -> None:
    state = position(players=3)
    state.court[5] = [DiceGroup(1, (5,), (), False)]
    me = state.provinces[0]
    me.coloured = [5]
    state.provinces[1].passed = state.provinces[2].passed = True
    season.begin_influence(state)
    # The only placement is taken: the player is passed without being asked.
    assert me.passed
    assert state.decision is not Decision.INFLUENCE


def test_the_smuggler_needs_a_vp_to_pay() -> None:
    poor = _alone_influencing([6, 6], [], tokens=1)
    assert SMUGGLER not in _targets(poor, 0)
    rich = _alone_influencing([6, 6], [], tokens=1)
    rich.provinces[0].vp = 1
    season.begin_influence(rich)
    assert SMUGGLER in _targets(rich, 0)


def test_an_illegal_action_is_refused() -> None:
    state = _alone_influencing([2], [])
    try:
        state.apply({0: Influence(3, (2,), (), False, 0, False)})
    except RulesError:
        return
    raise AssertionError("a sum of 2 on advisor 3 was accepted")


def test_kings_reward_goes_to_every_player_tied_for_most_buildings() -> None:
    state = position()
    state.provinces[ANN].buildings = {Building.STATUE, Building.INN}
    state.provinces[CINDY].buildings = {Building.PALISADE, Building.BARRICADE}
    state.provinces[DAVID].buildings = {Building.PALISADE}
    state.kings_reward()
    assert [p.vp for p in state.provinces] == [1, 0, 1, 0]


def test_an_unused_envoy_returns_at_the_next_envoy_phase() -> None:
    state = position()
    state.envoy_holder = ANN
    state.provinces[ANN].buildings = {Building.STATUE}
    state.provinces[BRIAN].gain(gold=1)
    state.provinces[CINDY].gain(gold=1)
    state.provinces[DAVID].gain(gold=1)
    state.kings_envoy()
    assert state.envoy_holder == -1  # Brian, Cindy, David tie: nobody gets it


def test_the_envoy_joins_only_once_and_an_advisor_never_holds_three_groups() -> None:
    state = position(players=3)
    state.envoy_holder = 0
    state.court[4] = [DiceGroup(1, (4,), (), False)]
    me = state.provinces[0]
    me.coloured = [4, 4]
    state.provinces[1].passed = state.provinces[2].passed = True
    season.begin_influence(state)
    state.apply({0: Influence(4, (4,), (), False, 0, True)})
    assert len(state.court[4]) == 2
    assert state.envoy_holder == -1
    assert 4 not in _targets(state, 0)  # the Envoy is spent


def test_general_and_queen_show_the_enemy_to_their_player_only() -> None:
    state = position()
    state.phase = Phase.SPRING
    give_gift(GENERAL, state.provinces[BRIAN], state.year)
    assert state.observation(BRIAN).enemy == cards_of_year(1)[0]
    for seat in (ANN, CINDY, DAVID):
        assert state.observation(seat).enemy is None
    assert state.observation(ANN).provinces[BRIAN].peeked_this_year  # that he looked is public


def test_a_loser_with_more_goods_than_demanded_chooses_which_to_give() -> None:
    state = position(draws=dice(1))
    state.enemy_deck[0] = 3  # year I Orcs 3: lose 2 goods of choice and 1 VP
    state.turn_order = [ANN, BRIAN, CINDY, DAVID]
    for province in state.provinces:
        province.soldiers = 5  # everyone else wins
    ann, brian = state.provinces[ANN], state.provinces[BRIAN]
    ann.soldiers, ann.vp = 0, 4
    ann.gain(gold=1, wood=1, stone=1)
    brian.soldiers = 0
    brian.gain(stone=1)
    state.battle()
    # Brian held only one good: it went without asking. Ann chooses two of her three.
    assert brian.goods() == 0
    assert state.decision is Decision.BATTLE_LOSS
    assert state.to_act() == (ANN,)
    assert set(state.legal_actions(ANN)) == {LoseGoods(1, 1, 0), LoseGoods(1, 0, 1), LoseGoods(0, 1, 1)}
    state.apply({ANN: LoseGoods(1, 1, 0)})
    assert (ann.gold, ann.wood, ann.stone, ann.vp) == (0, 0, 1, 3)


def test_the_bonus_vp_goes_to_every_victor_tied_for_strongest() -> None:
    state = position(draws=dice(1))
    state.enemy_deck[0] = 2  # Goblins 3
    soldiers = [4, 4, 3, 2]
    for province, count in zip(state.provinces, soldiers, strict=True):
        province.soldiers = count
    state.battle()
    # Ann and Brian 5: stone + bonus; Cindy 4: stone only; David 3: draw.
    assert [p.vp for p in state.provinces] == [1, 1, 0, 0]
    assert [p.stone for p in state.provinces][:3] == [1, 1, 1]


def test_a_battle_reward_of_choice_is_asked() -> None:
    state = position(draws=dice(6))
    state.year = 4
    state.enemy_deck[3] = 3  # year IV Orcs 7: reward one good of choice
    state.provinces[ANN].soldiers = 2
    state.battle()
    assert state.decision is Decision.BATTLE_REWARD
    assert state.to_act() == (ANN,)
    assert set(state.legal_actions(ANN)) == {TakeGoods(1, 0, 0), TakeGoods(0, 1, 0), TakeGoods(0, 0, 1)}


def test_two_player_neutral_dice_block_two_advisors() -> None:
    state = position(players=2, draws=dice(3, 4, 5, 2, 5))
    season.begin(state, Phase.SPRING)
    blocked = {a for a in range(1, 19) if state.court[a]}
    assert blocked == {12, 7}
    assert all(g.owner == -1 for a in blocked for g in state.court[a])


def test_two_player_neutral_pair_with_the_same_sum_splits_and_a_double_blocks_once() -> None:
    split = position(players=2, draws=dice(1, 1, 5, 3, 4))
    season.begin(split, Phase.SPRING)
    assert {a for a in range(1, 19) if split.court[a]} == {7, 3, 4}
    double = position(players=2, draws=dice(1, 2, 1, 2, 2))
    season.begin(double, Phase.SPRING)
    assert {a for a in range(1, 19) if double.court[a]} == {4, 2}


def test_the_end_ranks_by_vp_then_goods_then_buildings_else_shared() -> None:
    state = position()
    state.year = 5
    vps = [10, 10, 10, 9]
    for province, vp in zip(state.provinces, vps, strict=True):
        province.vp = vp
    state.provinces[ANN].gain(gold=2)
    state.provinces[BRIAN].gain(gold=1)
    state.provinces[CINDY].gain(wood=1)
    state.provinces[BRIAN].buildings = {Building.STATUE}
    state.end_year()
    assert state.result().ranks == (1, 2, 3, 4)
    state.provinces[CINDY].buildings = {Building.INN}
    assert state.result().ranks == (1, 2, 2, 4)  # Brian and Cindy share second


def test_a_new_game_starts_with_the_kings_aid_to_every_player() -> None:
    state = GAME.new(3, seed=7)
    assert state.to_act() == (0, 1, 2)
    assert state.observation(0).decision is Decision.AID_GOOD
    assert Pass() not in state.legal_actions(0)
