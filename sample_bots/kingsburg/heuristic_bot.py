"""A Kingsburg bot that values each legal action from the observation alone, with fixed weights.

It aims at one building at a time (the affordable-soonest one with the best VP and battle
value among the next free building of each row) and values goods by how much that target
still needs; an advisor's gift is worth its goods, VP, soldiers and tokens, minus a price for
each die and token it uses, so dice go where they buy the most. It always builds the best
building it can, spends the Town Hall, re-rolls low dice, and in phase 7 hires the soldiers it
needs to beat this year's enemy (the card if it peeked, else the year's strongest card) after an
average King's die. Run it against a server with ``python sample_bots/kingsburg/heuristic_bot.py``
(``KINGMAKER_SERVER`` and ``KINGMAKER_TOKEN`` set).
"""

from __future__ import annotations

from kingmaker.games.api import Action
from kingmaker.games.kingsburg.actions import (
    ChooseGood,
    Construct,
    Influence,
    LoseGoods,
    Offering,
    Pass,
    Recruit,
    TakeGoods,
    TradeGood,
    UseChapel,
    UseStatue,
    UseTownHall,
)
from kingmaker.games.kingsburg.data import (
    BUILDING_FACTS,
    Building,
    EnemyCard,
    Good,
    battle_modifier,
    cards_of_year,
    column_of,
    left_neighbour,
)
from kingmaker.games.kingsburg.views import Observation, Phase, ProvinceView
from kingmaker.sdk import Bot, Request

VP = 1.6
"""A VP is the score itself; a good is worth about 1 (most buildings cost 2 to 6 goods)."""
TOKEN = 0.6
SOLDIER = 0.5
DIE_PRICE = 0.9
"""What a coloured die could earn elsewhere this season."""
WHITE_DIE_PRICE = 0.3
ENVOY_PRICE = 1.5
POWER_BONUS = {
    Building.MERCHANTS_GUILD: 2.0,
    Building.MARKET: 1.0,
    Building.CRANE: 1.0,
    Building.TOWN_HALL: 2.0,
    Building.EMBASSY: 3.0,
    Building.INN: 0.5,
    Building.FARMS: 1.0,
    Building.STABLES: 0.5,
    Building.BARRACKS: 0.5,
}
"""Worth beyond VP and battle modifier, for buildings whose power keeps paying."""

# Advisor gifts as (gold, wood, stone, goods of choice, vp, soldiers, tokens).
GIFTS: dict[int, tuple[int, int, int, int, int, int, int]] = {
    1: (0, 0, 0, 0, 1, 0, 0),
    2: (1, 0, 0, 0, 0, 0, 0),
    3: (0, 1, 0, 0, 0, 0, 0),
    4: (0, 0, 0, 1, 0, 0, 0),
    5: (0, 0, 0, 0, 0, 1, 0),
    6: (0, 0, 0, 1, 0, 0, 0),
    7: (0, 0, 0, 1, 0, 0, 1),
    8: (2, 0, 0, 0, 0, 0, 0),
    9: (0, 1, 0, 1, 0, 0, 0),
    10: (0, 0, 0, 0, 0, 2, 0),
    11: (0, 0, 1, 1, 0, 0, 0),
    12: (0, 0, 0, 2, 0, 0, 1),
    13: (0, 0, 3, 0, 0, 0, 0),
    14: (0, 0, 0, 3, -1, 0, 0),
    15: (1, 1, 1, 0, 0, 0, 0),
    16: (4, 0, 0, 0, 0, 0, 0),
    17: (0, 0, 0, 2, 3, 0, 0),
    18: (1, 1, 1, 0, 0, 1, 0),
}


def building_worth(building: Building, years_left: int) -> float:
    facts = BUILDING_FACTS[building]
    power = POWER_BONUS.get(building, 0.0) * years_left / 5
    return facts.vp * VP + max(facts.battle, 0) * 1.2 + power


def cost_for(me: ProvinceView, building: Building) -> tuple[int, int, int]:
    facts = BUILDING_FACTS[building]
    gold = facts.gold
    if Building.CRANE in me.buildings and column_of(building) >= 2:
        gold = max(0, gold - 1)
    return gold, facts.wood, facts.stone


def target(me: ProvinceView, years_left: int) -> Building | None:
    """The next building to save for: the best value for its missing goods."""
    candidates = [
        b
        for b in Building
        if b not in me.buildings and (left_neighbour(b) in me.buildings or column_of(b) == 0)
    ]
    if not candidates:
        return None

    def score(building: Building) -> float:
        cost = cost_for(me, building)
        missing = sum(max(0, need - held) for need, held in zip(cost, goods(me), strict=True))
        return building_worth(building, years_left) / (1 + missing)

    return max(candidates, key=score)


def goods(me: ProvinceView) -> tuple[int, int, int]:
    return me.gold, me.wood, me.stone


_WORTH_SEEN: dict[tuple[object, ...], tuple[float, float, float]] = {}
"""``good_values`` by buildings, goods and years left: a search bot asks it thousands of times."""


def good_values(me: ProvinceView, years_left: int) -> tuple[float, float, float]:
    """Each kind's worth: 1, more while the target still lacks it."""
    key = (me.buildings, me.gold, me.wood, me.stone, years_left)
    worth = _WORTH_SEEN.get(key)
    if worth is None:
        if len(_WORTH_SEEN) >= 100_000:
            _WORTH_SEEN.clear()
        worth = _WORTH_SEEN[key] = _good_values(me, years_left)
    return worth


def _good_values(me: ProvinceView, years_left: int) -> tuple[float, float, float]:
    aim = target(me, years_left)
    if aim is None:
        return 1.0, 1.0, 1.0
    need = cost_for(me, aim)
    gold, wood, stone = (
        1.0 + (0.6 if wanted > held else 0.0) for wanted, held in zip(need, goods(me), strict=True)
    )
    return gold + 0.2, wood, stone  # gold buys the most buildings


def expected_enemy(observation: Observation) -> EnemyCard:
    if observation.enemy is not None:
        return observation.enemy
    return max(cards_of_year(observation.year), key=lambda card: card.strength)


class HeuristicBot(Bot):
    name = "kingsburg_heuristic"

    def act(self, request: Request) -> int:
        values = self.values(request.observation, request.legal_actions)
        return max(range(len(values)), key=values.__getitem__)

    def values(self, observation: Observation, legal: tuple[Action, ...]) -> list[float]:
        """Each legal action's worth; the bot plays the largest (a search bot's guide, too)."""
        me = observation.provinces[observation.seat]
        # The goods' worth depends on the position only: computed once, not once per action.
        worth = good_values(me, 6 - observation.year)
        return [self.value(observation, me, action, worth) for action in legal]

    def value(
        self, obs: Observation, me: ProvinceView, action: Action, worth: tuple[float, float, float]
    ) -> float:
        years_left = 6 - obs.year
        if isinstance(action, ChooseGood):
            return worth[action.good.value - 1]
        if isinstance(action, UseChapel):
            return 1.0
        if isinstance(action, UseStatue):
            dice = me.coloured_dice + me.white_dice
            return 1.0 if dice and dice[0] <= 3 and not action.white else -1.0
        if isinstance(action, Influence):
            return self.influence_value(obs, me, action, worth)
        if isinstance(action, TakeGoods):
            return sum(n * w for n, w in zip(goods_of(action), worth, strict=True))
        if isinstance(action, TradeGood):
            others = sum(w for kind, w in zip(Good, worth, strict=True) if kind is not action.give)
            return others - worth[action.give.value - 1]
        if isinstance(action, Construct):
            return 10 + building_worth(action.building, years_left)
        if isinstance(action, UseTownHall):
            if action.offering is Offering.PLUS_TWO:
                return VP - TOKEN
            return VP - worth[action.offering.value - 2]
        if isinstance(action, Recruit):
            return self.recruit_value(obs, me, action, worth)
        if isinstance(action, LoseGoods):
            return -sum(n * w for n, w in zip(goods_of(action), worth, strict=True))
        assert isinstance(action, Pass)
        return 0.0

    def influence_value(
        self,
        obs: Observation,
        me: ProvinceView,
        action: Influence,
        worth: tuple[float, float, float],
    ) -> float:
        gold, wood, stone, choice, vp, soldiers, tokens = GIFTS[action.advisor]
        if action.advisor == 6 and sum(goods(me)) == 0:
            choice = 0  # the Alchemist needs a good to trade
        if Building.STABLES in me.buildings and soldiers:
            soldiers += 1
        # Soldiers only count in this winter's battle: worth more once the battle is near.
        soldier_worth = SOLDIER * (1.6 if obs.phase is Phase.AUTUMN else 1.0)
        gift = gold * worth[0] + wood * worth[1] + stone * worth[2] + choice * max(worth)
        gift += vp * VP + soldiers * soldier_worth + tokens * TOKEN
        price = DIE_PRICE * len(action.coloured) + WHITE_DIE_PRICE * len(action.white)
        price += TOKEN * action.plus_two + ENVOY_PRICE * action.envoy + 0.1 * abs(action.market)
        return gift - price

    def recruit_value(
        self,
        obs: Observation,
        me: ProvinceView,
        action: Recruit,
        worth: tuple[float, float, float],
    ) -> float:
        enemy = expected_enemy(obs)
        modifiers = sum(battle_modifier(b, enemy.kind) for b in me.buildings)
        strength_after_average_die = me.soldiers + modifiers + 3
        if strength_after_average_die > enemy.strength:
            return -1.0  # enough already
        shortfall = enemy.strength + 1 - strength_after_average_die
        stake = 2.0 + enemy.loss_vp + 3.0 * enemy.loss_building + enemy.reward_vp
        if shortfall > 3 and obs.year < 5:
            return -1.0  # too far behind to catch up cheaply
        price = sum(n * w for n, w in zip(goods_of(action), worth, strict=True))
        return stake / shortfall - price + 0.5


def goods_of(action: TakeGoods | LoseGoods | Recruit) -> tuple[int, int, int]:
    return action.gold, action.wood, action.stone


if __name__ == "__main__":
    from kingmaker.sdk import run

    run(HeuristicBot())
