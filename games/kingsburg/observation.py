"""Each seat's observation, built from scratch: the public board plus that seat's own peek."""

from __future__ import annotations

import dataclasses
import functools
import operator

from kingmaker.games.kingsburg.table import KingsburgTable
from kingmaker.games.kingsburg.views import AdvisorSpace, Decision, DiceGroup, Observation, ProvinceView


def observe(state: KingsburgTable, seat: int) -> Observation:
    provinces = tuple(
        _province_view(  # positional, in ProvinceView's order: the cache's key is built faster
            index,
            p.gold,
            p.wood,
            p.stone,
            p.vp,
            p.soldiers,
            p.plus_two,
            tuple(sorted(p.buildings, key=_building_number)),
            tuple(p.coloured),
            tuple(p.white),
            p.aid_die,
            p.passed,
            p.statue_used,
            p.chapel_used,
            p.market_used,
            p.town_hall_used,
            p.builds,
            p.peeked_year == state.year,
        )
        for index, p in enumerate(state.provinces)
    )
    court = _court_view(tuple(map(tuple, state.court[1:19])))
    # The only secret: this year's enemy card, seen by the General's or Queen's guest.
    knows_enemy = state.revealed or state.provinces[seat].peeked_year == state.year
    return Observation(
        seat=seat,
        players=state.players,
        year=state.year,
        phase=state.phase,
        decision=state.decision,
        acting=state.acting,
        gift_advisor=state.gift_advisor if state.decision is Decision.GIFT else 0,
        turn_order=tuple(state.turn_order),
        provinces=provinces,
        court=court,
        envoy_holder=state.envoy_holder,
        king_die=state.king_die,
        enemy=state.enemy() if knows_enemy and not state.is_over() else None,
        past_enemies=tuple(state.past_enemies),
    )


# One object per distinct part: observations in a row repeat most of their parts (a province that
# did not change, an empty advisor space), and a referee's codec finds a part it has sent before
# by identity, where a new equal object would have to be hashed field by field first.
_province_view = functools.lru_cache(maxsize=4096)(ProvinceView)
_advisor_space = functools.lru_cache(maxsize=4096)(AdvisorSpace)


@functools.lru_cache(maxsize=4096)
def _court_view(groups: tuple[tuple[DiceGroup, ...], ...]) -> tuple[AdvisorSpace, ...]:
    """The 18 advisors' spaces (Jester first): the court changes a few times a season, while
    every decision observes it."""
    return tuple(_advisor_space(advisor, placed) for advisor, placed in enumerate(groups, start=1))


_building_number = operator.attrgetter("_value_")
"""A building's number (its ``value``), read without the Enum's ``value`` property: it sorts
every province's buildings for every observation."""

# ``observe`` passes a province's fields by position: a reordered ProvinceView must fail here,
# not swap two counts silently.
assert [field.name for field in dataclasses.fields(ProvinceView)] == [
    "seat", "gold", "wood", "stone", "vp", "soldiers", "plus_two", "buildings", "coloured_dice",
    "white_dice", "aid_die", "passed", "statue_used", "chapel_used", "market_used",
    "town_hall_used", "builds_this_season", "peeked_this_year",
]  # fmt: skip
