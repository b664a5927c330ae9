"""The advisors' help: each gift's fixed part, and the choices a gift leaves to its player.

``give_gift`` applies what needs no decision and returns the actions among which the player
must choose the rest (an empty tuple when nothing is left to choose; a single option is applied
at once rather than asked for).
"""

from __future__ import annotations

from kingmaker.games.api import Action
from kingmaker.games.kingsburg.actions import Pass, TakeGoods, TradeGood
from kingmaker.games.kingsburg.data import (
    ALCHEMIST,
    ARCHITECT,
    ASTRONOMER,
    CHAMPION,
    DUCHESS,
    GENERAL,
    INVENTOR,
    JESTER,
    KING,
    MASTER_HUNTER,
    MERCHANT,
    QUEEN,
    SERGEANT,
    SMUGGLER,
    SQUIRE,
    SWORDSMITH,
    TREASURER,
    WIZARD,
    Building,
    Good,
)
from kingmaker.games.kingsburg.province import Province, goods_choices


def _take(picks: list[tuple[int, int, int]]) -> tuple[Action, ...]:
    return tuple(TakeGoods(*pick) for pick in picks)


def give_gift(advisor: int, province: Province, year: int) -> tuple[Action, ...]:
    """Apply the advisor's fixed help to ``province``; return the choices still open."""
    stables = 1 if province.owns(Building.STABLES) else 0
    choices: tuple[Action, ...] = ()
    if advisor == JESTER:
        province.vp += 1
    elif advisor == SQUIRE:
        province.gain(gold=1)
    elif advisor == ARCHITECT:
        province.gain(wood=1)
    elif advisor == MERCHANT:
        choices = (TakeGoods(0, 1, 0), TakeGoods(1, 0, 0))
    elif advisor == SERGEANT:
        province.soldiers += 1 + stables
    elif advisor == ALCHEMIST:
        held = [good for good in Good if province.count(good) > 0]
        choices = (*(TradeGood(good) for good in held), Pass()) if held else ()
    elif advisor == ASTRONOMER:
        province.plus_two += 1
        choices = _take(goods_choices(1))
    elif advisor == TREASURER:
        province.gain(gold=2)
    elif advisor == MASTER_HUNTER:
        choices = (TakeGoods(1, 1, 0), TakeGoods(0, 1, 1))
    elif advisor == GENERAL:
        province.soldiers += 2 + stables
        province.peeked_year = year
    elif advisor == SWORDSMITH:
        choices = (TakeGoods(0, 1, 1), TakeGoods(1, 0, 1))
    elif advisor == DUCHESS:
        province.plus_two += 1
        choices = _take(goods_choices(2))
    elif advisor == CHAMPION:
        province.gain(stone=3)
    elif advisor == SMUGGLER:
        province.lose_vp(1)
        choices = _take(goods_choices(3))
    elif advisor in (INVENTOR, KING):
        province.gain(1, 1, 1)
        if advisor == KING:
            province.soldiers += 1 + stables
    elif advisor == WIZARD:
        province.gain(gold=4)
    elif advisor == QUEEN:
        province.vp += 3
        province.peeked_year = year
        choices = _take(goods_choices(2))
    else:
        raise ValueError(f"there is no advisor {advisor}")
    return choices


def apply_choice(province: Province, action: Action) -> None:
    """The player's pick among the choices ``give_gift`` returned."""
    if isinstance(action, TakeGoods):
        province.gain(action.gold, action.wood, action.stone)
    elif isinstance(action, TradeGood):
        province.gain_good(action.give, -1)
        for good in Good:
            if good is not action.give:
                province.gain_good(good)
