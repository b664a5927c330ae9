"""Each seat's observation, built from scratch: the public board plus that seat's own peek."""

from __future__ import annotations

import functools

from kingmaker.games.kingsburg.table import KingsburgTable
from kingmaker.games.kingsburg.views import AdvisorSpace, Decision, Observation, ProvinceView


def observe(state: KingsburgTable, seat: int) -> Observation:
    provinces = tuple(
        _province_view(
            seat=index,
            gold=p.gold,
            wood=p.wood,
            stone=p.stone,
            vp=p.vp,
            soldiers=p.soldiers,
            plus_two=p.plus_two,
            buildings=tuple(sorted(p.buildings, key=lambda b: b.value)),
            coloured_dice=tuple(p.coloured),
            white_dice=tuple(p.white),
            aid_die=p.aid_die,
            passed=p.passed,
            statue_used=p.statue_used,
            chapel_used=p.chapel_used,
            market_used=p.market_used,
            town_hall_used=p.town_hall_used,
            builds_this_season=p.builds,
            peeked_this_year=p.peeked_year == state.year,
        )
        for index, p in enumerate(state.provinces)
    )
    court = tuple(_advisor_space(advisor, tuple(state.court[advisor])) for advisor in range(1, 19))
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
