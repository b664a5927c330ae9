"""Every worked example of the Kingsburg rulebook, from a constructed position."""

from __future__ import annotations

from kingsburg_helpers import ANN, BRIAN, CINDY, DAVID, dice, position

from kingmaker.games.kingsburg import season
from kingmaker.games.kingsburg.actions import (
    ChooseGood,
    Construct,
    Influence,
    Pass,
    TakeGoods,
    TradeGood,
    UseChapel,
    UseStatue,
)
from kingmaker.games.kingsburg.data import Building, EnemyKind, Good
from kingmaker.games.kingsburg.state import KingsburgState
from kingmaker.games.kingsburg.views import Decision, DiceGroup, Phase


def group(*coloured: int) -> Influence:
    """Shorthand: a plain influence with these coloured dice on the advisor of their sum."""
    return Influence(sum(coloured), tuple(sorted(coloured)), (), False, 0, False)


def test_year_one_aid_every_player_is_tied_and_chooses_a_good_at_once() -> None:
    state = position(draws=dice(*[3] * 12))
    state.begin_year()
    assert state.to_act() == (ANN, BRIAN, CINDY, DAVID)
    assert all(not p.aid_die for p in state.provinces)
    choices = {ANN: Good.WOOD, BRIAN: Good.STONE, CINDY: Good.GOLD, DAVID: Good.GOLD}
    state.apply({seat: ChooseGood(good) for seat, good in choices.items()})
    holdings = [(p.gold, p.wood, p.stone) for p in state.provinces]
    assert holdings == [(0, 1, 0), (0, 0, 1), (1, 0, 0), (1, 0, 0)]
    assert state.phase is Phase.SPRING
    assert all(len(p.white) == 0 for p in state.provinces)  # nobody rolls the white die


def test_year_three_aid_gives_the_white_die_to_cindy_alone() -> None:
    # 3 coloured dice each and Cindy's white die: Ann, Brian, then Cindy (3 + 1), then David.
    state = position(draws=dice(6, 5, 4, 6, 5, 4, 6, 5, 4, 3, 6, 5, 4, 6))
    state.year = 3
    six = {Building.STATUE, Building.CHAPEL, Building.INN, Building.GUARD_TOWER}
    six |= {Building.PALISADE, Building.BARRICADE}
    five = six - {Building.CHAPEL}
    state.provinces[ANN].buildings = set(six)
    state.provinces[BRIAN].buildings = set(five)
    state.provinces[BRIAN].gain(gold=2)
    state.provinces[CINDY].buildings = set(five)
    state.provinces[DAVID].buildings = set(six)
    state.provinces[DAVID].gain(wood=1)
    state.begin_year()
    assert [p.aid_die for p in state.provinces] == [False, False, True, False]
    assert state.provinces[CINDY].white == [3]
    assert [len(p.white) for p in state.provinces] == [0, 0, 1, 0]
    # Nobody chose a good: the only aid is Cindy's die.
    assert [p.goods() for p in state.provinces] == [0, 2, 0, 1]


def _influence_round_position() -> KingsburgState:
    # Spring dice: Ann 5 3 1, Brian 4 4 5, Cindy 2 6 2, David 2 5 3.
    state = position(draws=dice(5, 3, 1, 4, 4, 5, 2, 6, 2, 2, 5, 3))
    state.provinces[BRIAN].gain(stone=1)
    state.provinces[CINDY].gain(gold=1)
    season.begin(state, Phase.SPRING)
    return state


def test_turn_order_is_by_dice_sum_with_the_previous_order_breaking_ties() -> None:
    state = _influence_round_position()
    # Ann 9; Cindy and David 10, Cindy was ahead before; Brian 13.
    assert state.turn_order == [ANN, CINDY, DAVID, BRIAN]


def test_the_influence_round_of_ann_cindy_david_and_brian() -> None:
    state = _influence_round_position()
    play = state.apply
    legal = state.legal_actions
    assert state.to_act() == (ANN,)
    play({ANN: group(5, 3)})  # the Treasurer (#8)
    assert group(2, 6) not in legal(CINDY)  # the Treasurer is taken
    play({CINDY: group(2, 2)})  # the Merchant (#4)
    play({DAVID: group(2, 5)})  # the Astronomer (#7)
    assert group(4, 4, 5) in legal(BRIAN)  # he could take the Champion ("Hero", #13)
    assert group(4, 4) not in legal(BRIAN)
    play({BRIAN: group(4, 5)})  # the Master Hunter (#9)
    play({ANN: group(1)})  # the Jester
    play({CINDY: group(6)})  # the Alchemist
    play({DAVID: group(3)})  # the Architect
    # Brian's last die, a 4, has nowhere to go (the Merchant is taken): he passes, the step ends.
    assert state.provinces[BRIAN].passed
    assert state.decision is Decision.GIFT


def test_the_advisors_help_in_ascending_order() -> None:
    state = _influence_round_position()
    for seat, faces in [
        (ANN, (5, 3)),
        (CINDY, (2, 2)),
        (DAVID, (2, 5)),
        (BRIAN, (4, 5)),
        (ANN, (1,)),
        (CINDY, (6,)),
        (DAVID, (3,)),
    ]:
        state.apply({seat: group(*faces)})
    p = state.provinces
    # The Jester and the Architect needed no choice: Ann has 1 VP, David a wood.
    assert p[ANN].vp == 1
    assert (p[DAVID].gold, p[DAVID].wood, p[DAVID].stone) == (0, 1, 0)
    # The Merchant: Cindy already has a gold, she takes the wood.
    assert state.to_act() == (CINDY,)
    assert state.gift_advisor == 4
    state.apply({CINDY: TakeGoods(0, 1, 0)})
    # The Alchemist: she gives that wood back for a gold and a stone.
    assert state.gift_advisor == 6
    state.apply({CINDY: TradeGood(Good.WOOD)})
    assert (p[CINDY].gold, p[CINDY].wood, p[CINDY].stone) == (2, 0, 1)
    # The Astronomer: a "+2" token and one good of David's choice.
    state.apply({DAVID: TakeGoods(0, 0, 1)})
    assert p[DAVID].plus_two == 1
    assert p[DAVID].stone == 1
    # The Treasurer gave Ann two gold without asking; the Master Hunter asks Brian.
    assert p[ANN].gold == 2
    assert state.to_act() == (BRIAN,)
    assert set(state.legal_actions(BRIAN)) == {TakeGoods(1, 1, 0), TakeGoods(0, 1, 1)}
    state.apply({BRIAN: TakeGoods(1, 1, 0)})
    assert (p[BRIAN].gold, p[BRIAN].wood, p[BRIAN].stone) == (1, 1, 1)
    # Everyone took their dice back; the construction step has begun.
    assert state.decision is Decision.CONSTRUCT
    assert all(not space for space in state.court)


def test_the_constructions_of_ann_brian_cindy_and_david() -> None:
    state = position()
    state.turn_order = [ANN, BRIAN, CINDY, DAVID]
    p = state.provinces
    p[ANN].gain(gold=2, wood=1)
    p[BRIAN].gain(gold=1, wood=1)
    p[CINDY].gain(gold=2, stone=1)
    p[DAVID].gain(wood=2)
    season.begin_construction(state)
    # Each check comes right after that player's turn (the game runs on after the last one).
    state.apply({ANN: Construct(Building.STATUE)})
    assert ((p[ANN].gold, p[ANN].wood), p[ANN].vp) == ((0, 1), 3)
    # The Church needs the Statue and the Chapel to its left.
    assert not p[ANN].can_build(Building.CHURCH)
    state.apply({BRIAN: Construct(Building.INN)})
    assert (p[BRIAN].goods(), p[BRIAN].vp) == (0, 0)
    state.apply({CINDY: Construct(Building.GUARD_TOWER)})
    assert ((p[CINDY].gold, p[CINDY].stone), p[CINDY].vp) == ((1, 0), 1)
    assert Construct(Building.BARRICADE) in state.legal_actions(DAVID)
    state.phase = Phase.SPRING
    state.apply({DAVID: Construct(Building.PALISADE)})
    assert p[DAVID].wood == 0
    assert p[DAVID].buildings == {Building.PALISADE}
    # Then the King's reward: all four tie for most buildings (one each), 1 VP each.
    assert [q.vp for q in p] == [3 + 1, 0 + 1, 1 + 1, 0 + 1]


def test_the_envoy_goes_to_david_and_to_nobody_if_cindy_also_had_no_goods() -> None:
    def envoy_position(cindy_goods: int) -> int:
        state = position()
        state.year = 2
        rows = [Building.STATUE, Building.INN, Building.GUARD_TOWER, Building.PALISADE]
        for seat, province in enumerate(state.provinces):
            province.buildings = set(rows) | ({Building.BARRICADE} if seat == ANN else set())
        state.provinces[BRIAN].gain(gold=2)
        state.provinces[CINDY].gain(gold=cindy_goods)
        state.kings_envoy()
        return state.envoy_holder

    assert envoy_position(cindy_goods=1) == DAVID
    assert envoy_position(cindy_goods=0) == -1


def test_david_builds_the_barricade_and_the_blacksmith_with_the_envoy() -> None:
    state = position()
    state.turn_order = [DAVID, ANN, BRIAN, CINDY]
    david = state.provinces[DAVID]
    david.buildings = {Building.GUARD_TOWER}
    david.gain(gold=1, wood=3)
    state.envoy_holder = DAVID
    state.phase = Phase.SPRING
    season.begin_construction(state)
    state.apply({DAVID: Construct(Building.BARRICADE)})
    assert state.to_act() == (DAVID,)  # the Envoy allows a second building
    state.apply({DAVID: Construct(Building.BLACKSMITH)})
    assert state.phase is Phase.SUMMER  # the season ended with no other builder
    assert david.buildings == {Building.GUARD_TOWER, Building.BARRICADE, Building.BLACKSMITH}
    assert david.goods() == 0
    assert state.envoy_holder == -1  # used, back on the calendar


def test_without_the_envoy_one_building_a_season() -> None:
    state = position()
    state.turn_order = [DAVID, ANN, BRIAN, CINDY]
    state.provinces[DAVID].gain(gold=1, wood=3)
    season.begin_construction(state)
    state.phase = Phase.SPRING
    state.apply({DAVID: Construct(Building.BARRICADE)})
    # Nobody else can build: the season is over and summer has begun.
    assert state.phase is Phase.SUMMER
    assert state.provinces[DAVID].buildings == {Building.BARRICADE}


def test_david_joins_brian_on_the_architect_with_the_envoy_and_both_get_a_wood() -> None:
    state = position()
    state.turn_order = [DAVID, ANN, BRIAN, CINDY]
    state.envoy_holder = DAVID
    state.court[3] = [DiceGroup(BRIAN, (3,), (), False)]
    for seat in (ANN, BRIAN, CINDY):
        state.provinces[seat].passed = True
    state.provinces[DAVID].coloured = [3]
    season.begin_influence(state)
    envoy = Influence(3, (3,), (), False, 0, True)
    assert state.legal_actions(DAVID) == (envoy, Pass())
    state.apply({DAVID: envoy})
    assert state.envoy_holder == -1
    assert state.provinces[BRIAN].wood == 1
    assert state.provinces[DAVID].wood == 1


def test_the_goblins_battle() -> None:
    # The King's die shows 1; later draws only start the next year.
    state = position(draws=dice(1) + [2] * 40)
    state.phase = Phase.WINTER
    state.enemy_deck[0] = 2  # year I Goblins, strength 3: win 1 stone, lose 1 gold + building
    assert (state.enemy().kind, state.enemy().strength) == (EnemyKind.GOBLINS, 3)
    p = state.provinces
    p[ANN].buildings = {Building.STATUE, Building.PALISADE, Building.BARRICADE}
    p[ANN].vp = 3
    p[BRIAN].buildings = {Building.INN, Building.GUARD_TOWER}
    p[BRIAN].gain(wood=1, stone=1)
    p[BRIAN].soldiers, p[BRIAN].vp = 1, 1
    p[CINDY].buildings = {Building.GUARD_TOWER, Building.BLACKSMITH, Building.BARRICADE}
    p[CINDY].vp = 3
    p[DAVID].buildings = {Building.INN, Building.BARRICADE, Building.CRANE}
    p[DAVID].gain(wood=1)
    p[DAVID].vp = 1
    state.battle()
    assert state.king_die == 1
    # Ann 3 and Brian 3: draws, nothing changes.
    assert p[ANN].vp == 3
    assert p[ANN].goods() == 0
    assert p[BRIAN].vp == 1
    assert (p[BRIAN].wood, p[BRIAN].stone) == (1, 1)
    # Cindy 4 wins a stone, and the bonus VP as the strongest victor.
    assert p[CINDY].stone == 1
    assert p[CINDY].vp == 3 + 1
    # David 2 loses: no gold to lose, the Crane (rightmost column) falls with its 1 VP.
    assert p[DAVID].buildings == {Building.INN, Building.BARRICADE}
    assert p[DAVID].vp == 0
    assert p[DAVID].wood == 1
    assert all(q.soldiers == 0 for q in p)  # the soldiers went home
    assert state.year == 2


def test_with_a_market_david_would_lose_the_market_instead_of_the_crane() -> None:
    state = position(draws=dice(1) + [2] * 40)
    state.enemy_deck[0] = 2
    david = state.provinces[DAVID]
    david.buildings = {Building.INN, Building.MARKET, Building.BARRICADE, Building.CRANE}
    david.vp = 2
    state.battle()
    assert david.buildings == {Building.INN, Building.BARRICADE, Building.CRANE}
    assert david.vp == 1


def test_statue_then_chapel_on_two_two_two_two() -> None:
    # Seat 0 owns Statue, Chapel and Farms: 2 2 2 and a white 2. Seats 1, 2 roll 6 6 6.
    state = position(players=3, draws=dice(2, 2, 2, 2, 6, 6, 6, 6, 6, 6, 1, 1, 1, 1, 1))
    me = state.provinces[0]
    me.buildings = {Building.STATUE, Building.CHAPEL, Building.INN, Building.MARKET}
    me.buildings.add(Building.FARMS)
    season.begin(state, Phase.SUMMER)
    assert state.to_act() == (0,)
    assert set(state.legal_actions(0)) == {UseStatue(False), UseStatue(True), Pass()}
    state.apply({0: UseStatue(white=True)})  # the re-roll shows a 1: total 7
    assert me.white == [1]
    assert set(state.legal_actions(0)) == {UseChapel(), Pass()}
    state.apply({0: UseChapel()})  # 1 1 1 1: total 4, four equal, but both are used up
    assert me.coloured == [1, 1, 1]
    assert me.white == [1]
    assert state.decision is Decision.INFLUENCE


def test_the_market_reaches_one_above_or_below_a_nine() -> None:
    state = position(players=3)
    me = state.provinces[0]
    me.buildings = {Building.INN, Building.MARKET}
    me.coloured = [4, 5]
    for other in (1, 2):
        state.provinces[other].passed = True
    season.begin_influence(state)
    targets = {a.advisor for a in state.legal_actions(0) if isinstance(a, Influence)}
    nine = {a.advisor for a in state.legal_actions(0) if isinstance(a, Influence) and len(a.coloured) == 2}
    assert nine == {8, 9, 10}
    assert targets == {3, 4, 5, 6, 8, 9, 10}
    state.apply({0: Influence(8, (4, 5), (), False, -1, False)})
    assert me.market_used
    assert me.gold == 2  # the Treasurer (#8) paid for the 9


def test_the_crane_makes_the_farms_cost_one_gold_three_wood_one_stone() -> None:
    state = position()
    me = state.provinces[0]
    assert me.cost(Building.FARMS) == (2, 3, 1)
    me.buildings = {Building.BARRICADE, Building.CRANE}
    assert me.cost(Building.FARMS) == (1, 3, 1)
    assert me.cost(Building.MARKET) == (2, 2, 0)  # column II: no discount
