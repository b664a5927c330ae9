"""Each of the 20 buildings' powers, shown at work."""

from __future__ import annotations

import pytest
from kingsburg_helpers import position

from kingmaker.games.kingsburg import season
from kingmaker.games.kingsburg.actions import (
    Construct,
    Influence,
    Offering,
    Pass,
    Recruit,
    UseTownHall,
)
from kingmaker.games.kingsburg.battle import Outcome, apply_fixed_reward, combat_value, outcome
from kingmaker.games.kingsburg.data import (
    GENERAL,
    KING,
    SERGEANT,
    Building,
    EnemyKind,
    cards_of_year,
)
from kingmaker.games.kingsburg.gifts import give_gift
from kingmaker.games.kingsburg.province import Province
from kingmaker.games.kingsburg.views import Decision, Phase

ZOMBIES_4 = cards_of_year(1)[4]
GOBLINS_3 = cards_of_year(1)[2]
DEMONS_6 = cards_of_year(3)[3]
ORCS_3 = cards_of_year(1)[3]


@pytest.mark.parametrize(
    ("building", "enemy", "modifier"),
    [
        (Building.GUARD_TOWER, ORCS_3, 1),
        (Building.BLACKSMITH, ORCS_3, 1),
        (Building.WIZARDS_GUILD, ORCS_3, 2),
        (Building.STONE_WALL, ORCS_3, 1),
        (Building.FORTRESS, ORCS_3, 1),
        (Building.FARMS, ORCS_3, -1),
        (Building.PALISADE, ORCS_3, 1),
        (Building.PALISADE, ZOMBIES_4, 2),
        (Building.BARRICADE, ORCS_3, 0),
        (Building.BARRICADE, GOBLINS_3, 1),
        (Building.CHURCH, GOBLINS_3, 0),
        (Building.CHURCH, DEMONS_6, 1),
        (Building.STATUE, DEMONS_6, 0),
    ],
)
def test_battle_modifiers(building: Building, enemy: object, modifier: int) -> None:
    province = Province(soldiers=3, buildings={building})
    assert combat_value(province, enemy) == 3 + modifier  # type: ignore[arg-type]


def test_the_enemy_families_are_the_ones_the_buildings_name() -> None:
    assert (ZOMBIES_4.kind, GOBLINS_3.kind, DEMONS_6.kind) == (
        EnemyKind.ZOMBIES,
        EnemyKind.GOBLINS,
        EnemyKind.DEMONS,
    )


def test_stone_wall_turns_a_draw_into_a_win_and_fortress_adds_a_vp() -> None:
    plain = Province(soldiers=3)
    walled = Province(soldiers=2, buildings={Building.STONE_WALL})
    assert outcome(plain, GOBLINS_3) is Outcome.DRAW
    assert outcome(walled, GOBLINS_3) is Outcome.WIN
    fortress = Province(buildings={Building.FORTRESS})
    apply_fixed_reward(fortress, ZOMBIES_4)  # the Zombies reward 1 VP
    assert fortress.vp == 1 + 1


def test_stables_add_a_soldier_to_the_sergeant_general_and_king() -> None:
    for advisor, plain_soldiers in [(SERGEANT, 1), (GENERAL, 2), (KING, 1)]:
        plain, stabled = Province(), Province(buildings={Building.STABLES})
        give_gift(advisor, plain, year=1)
        give_gift(advisor, stabled, year=1)
        assert (plain.soldiers, stabled.soldiers) == (plain_soldiers, plain_soldiers + 1)


def test_farms_roll_a_white_die_every_season_and_merchants_guild_pays_a_gold() -> None:
    state = position(players=3)
    farmer, merchant = state.provinces[0], state.provinces[1]
    farmer.buildings = {Building.INN, Building.MARKET, Building.FARMS}
    merchant.buildings = {Building.INN, Building.MARKET, Building.FARMS}
    merchant.buildings.add(Building.MERCHANTS_GUILD)
    season.begin(state, Phase.AUTUMN)
    assert (len(farmer.white), len(farmer.coloured)) == (1, 3)
    assert (farmer.gold, merchant.gold) == (0, 1)
    assert len(state.provinces[2].white) == 0


def test_the_kings_aid_die_is_rolled_in_spring_only() -> None:
    state = position(players=3)
    state.provinces[0].aid_die = True
    season.begin(state, Phase.SPRING)
    assert len(state.provinces[0].white) == 1
    season.begin(state, Phase.SUMMER)
    assert len(state.provinces[0].white) == 0


def test_market_is_used_once_a_season() -> None:
    state = position(players=3)
    me = state.provinces[0]
    me.buildings = {Building.INN, Building.MARKET}
    me.coloured = [4, 5, 6]
    state.provinces[1].passed = state.provinces[2].passed = True
    season.begin_influence(state)
    state.apply({0: Influence(3, (4,), (), False, -1, False)})
    assert all(a.market == 0 for a in state.legal_actions(0) if isinstance(a, Influence))


def _end_of_season(phase: Phase, buildings: set[Building], gold: int = 0) -> Province:
    state = position(players=3)
    state.phase = phase
    me = state.provinces[0]
    me.buildings = set(buildings)
    me.gold = gold
    season.begin_construction(state)
    return me


def test_inn_gives_a_token_at_the_end_of_summer_usable_at_once_for_the_town_hall() -> None:
    civic = {Building.INN, Building.BARRICADE, Building.CRANE, Building.TOWN_HALL}
    state = position(players=3)
    state.phase = Phase.SUMMER
    me = state.provinces[0]
    me.buildings = set(civic)
    season.begin_construction(state)
    assert state.decision is Decision.TOWN_HALL
    assert state.legal_actions(0) == (UseTownHall(Offering.PLUS_TWO), Pass())
    state.apply({0: UseTownHall(Offering.PLUS_TWO)})
    assert (me.plus_two, me.vp) == (0, 1)
    assert state.phase is Phase.AUTUMN  # one use, then the season ended


def test_inn_gives_nothing_at_the_end_of_spring() -> None:
    state = position(players=3)
    state.phase = Phase.SPRING
    me = state.provinces[0]
    me.buildings = {Building.INN}
    season.begin_construction(state)
    assert me.plus_two == 0


def test_town_hall_once_a_season_for_a_token_or_one_good() -> None:
    state = position(players=3)
    state.phase = Phase.AUTUMN
    me = state.provinces[0]
    me.buildings = {Building.BARRICADE, Building.CRANE, Building.TOWN_HALL}
    me.gold, me.stone, me.plus_two = 2, 1, 1
    me.coloured = []
    state.provinces[1].gold = 0
    state.queue = [0]
    season.end_season(state)
    offers = set(state.legal_actions(0))
    assert offers == {
        UseTownHall(Offering.PLUS_TWO),
        UseTownHall(Offering.GOLD),
        UseTownHall(Offering.STONE),
        Pass(),
    }
    state.apply({0: UseTownHall(Offering.GOLD)})
    assert (me.gold, me.vp) == (1, 1)
    # Once only: the season is over and recruitment has begun.
    assert state.phase is Phase.RECRUITMENT


def test_embassy_scores_at_the_end_of_the_season_it_is_built() -> None:
    state = position(players=3)
    state.phase = Phase.SPRING
    me = state.provinces[0]
    me.buildings = {Building.BARRICADE, Building.CRANE, Building.TOWN_HALL}
    me.gold, me.wood, me.stone = 2, 2, 2
    season.begin_construction(state)
    state.apply({0: Construct(Building.EMBASSY)})
    # The Crane took a gold off (column IV). Embassy 4 VP + 1 VP at the end of this season.
    assert me.gold == 1
    assert me.vp == 4 + 1
    assert state.decision is Decision.TOWN_HALL


def test_barracks_make_a_soldier_cost_one_good() -> None:
    state = position(players=3)
    me = state.provinces[0]
    me.gold, me.wood = 1, 2
    state.begin_recruitment()
    assert set(state.legal_actions(0)) == {Recruit(1, 1, 0), Recruit(0, 2, 0), Pass()}
    me.buildings = {Building.GUARD_TOWER, Building.BLACKSMITH, Building.BARRACKS}
    state.begin_recruitment()
    assert set(state.legal_actions(0)) == {Recruit(1, 0, 0), Recruit(0, 1, 0), Pass()}
    for _ in range(2):
        state.apply({0: state.legal_actions(0)[0]})
    assert (me.soldiers, me.goods()) == (2, 1)


def test_cathedral_scores_one_vp_per_two_goods_at_the_end() -> None:
    state = position(players=3)
    state.year = 5
    me = state.provinces[0]
    me.buildings = {Building.STATUE, Building.CHAPEL, Building.CHURCH, Building.CATHEDRAL}
    me.gold, me.wood, me.stone, me.vp = 2, 2, 1, 10
    state.end_year()
    assert state.is_over()
    assert me.vp == 10 + 2
    assert state.result().scores[0] == 12


def test_statue_and_chapel_are_only_offered_when_their_condition_holds() -> None:
    state = position(players=3, draws=[0, 1, 2, 3, 4, 5, 5, 5, 5])
    state.provinces[0].buildings = {Building.STATUE, Building.CHAPEL}
    season.begin(state, Phase.SPRING)  # 1 2 3: total 6 (Chapel), not all equal (no Statue)
    assert state.decision is Decision.REROLL
    assert [type(a).__name__ for a in state.legal_actions(0)] == ["UseChapel", "Pass"]
