"""A productive season (spring, summer, autumn): roll, re-roll, influence, gifts, build, end.

Each ``_next_*`` function finds the next seat that has a real choice in its step and stops
there (``state.ask``), or, when nobody is left, moves on to the next step. A seat whose only
option would be to pass is passed for it.
"""

from __future__ import annotations

from kingmaker.games.api import Action
from kingmaker.games.kingsburg.actions import (
    Construct,
    Influence,
    Offering,
    Pass,
    UseChapel,
    UseStatue,
    UseTownHall,
)
from kingmaker.games.kingsburg.data import BUILDING_FACTS, Building
from kingmaker.games.kingsburg.gifts import apply_choice, give_gift
from kingmaker.games.kingsburg.influence import influence_options, remove_dice, reroll_options
from kingmaker.games.kingsburg.table import KingsburgTable
from kingmaker.games.kingsburg.views import Decision, DiceGroup, Phase
from kingmaker.games.rng import roll

DECISIONS = frozenset(
    {Decision.REROLL, Decision.INFLUENCE, Decision.GIFT, Decision.CONSTRUCT, Decision.TOWN_HALL}
)
NEUTRAL = -1


def begin(state: KingsburgTable, phase: Phase) -> None:
    """Start a productive season: Merchants' Guild gold, neutral dice (2 players), the roll."""
    state.phase = phase
    state.court = [[] for _ in range(19)]
    for province in state.provinces:
        province.passed = False
        province.statue_used = province.chapel_used = False
        province.market_used = province.town_hall_used = False
        province.builds = 0
        if province.owns(Building.MERCHANTS_GUILD):
            province.gain(gold=1)
    if state.players == 2:
        place_neutral_dice(state)
    # Everyone rolls at once: the draws go seat by seat, coloured dice then white ones.
    for province in state.provinces:
        province.coloured = [roll(state.rng) for _ in range(3)]
        whites = int(province.aid_die and phase is Phase.SPRING)
        whites += int(province.owns(Building.FARMS))
        province.white = [roll(state.rng) for _ in range(whites)]
    state.queue = list(state.turn_order)
    _next_reroll(state)


def place_neutral_dice(state: KingsburgTable) -> None:
    """The 2-player rule: three dice block the advisor of their sum, then two dice theirs
    (or, on the same advisor, each die its own advisor; a double blocks just one)."""
    three = [roll(state.rng) for _ in range(3)]
    two = [roll(state.rng) for _ in range(2)]
    state.court[sum(three)].append(DiceGroup(NEUTRAL, tuple(sorted(three)), (), False))
    if sum(two) != sum(three):
        state.court[sum(two)].append(DiceGroup(NEUTRAL, tuple(sorted(two)), (), False))
        return
    for value in sorted(set(two)):
        state.court[value].append(DiceGroup(NEUTRAL, (value,), (), False))


def decide(state: KingsburgTable, seat: int, action: Action) -> None:
    """Apply ``seat``'s action in the current season step and run on to the next decision."""
    province = state.provinces[seat]
    if state.decision is Decision.REROLL:
        if isinstance(action, UseStatue):
            province.statue_used = True
            pool = province.white if action.white else province.coloured
            pool[0] = roll(state.rng)
        elif isinstance(action, UseChapel):
            province.chapel_used = True
            province.coloured = [roll(state.rng) for _ in province.coloured]
            province.white = [roll(state.rng) for _ in province.white]
        else:
            state.queue.pop(0)
        _next_reroll(state)
    elif state.decision is Decision.INFLUENCE:
        if isinstance(action, Influence):
            _place(state, seat, action)
        else:
            province.passed = True
        state.cursor = (state.cursor + 1) % state.players
        _next_influencer(state)
    elif state.decision is Decision.GIFT:
        apply_choice(province, action)
        _next_gift(state)
    elif state.decision is Decision.CONSTRUCT:
        if isinstance(action, Construct):
            _construct(state, seat, action.building)
        else:
            state.queue.pop(0)
        _next_builder(state)
    elif state.decision is Decision.TOWN_HALL:
        if isinstance(action, UseTownHall):
            _use_town_hall(state, seat, action.offering)
        state.queue.pop(0)
        _next_town_hall(state)


# -- a) the roll and the re-rolls, then the turn order ------------------------------------------


def _next_reroll(state: KingsburgTable) -> None:
    while state.queue:
        seat = state.queue[0]
        options = reroll_options(state.provinces[seat])
        if options:
            state.ask(seat, Decision.REROLL, (*options, Pass()))
            return
        state.queue.pop(0)
    order_turns(state)
    begin_influence(state)


def order_turns(state: KingsburgTable) -> None:
    """Lowest dice total first; a tie keeps the previous order (a stable sort does that)."""
    state.turn_order.sort(key=lambda seat: state.provinces[seat].dice_sum())


# -- b) influencing the advisors --------------------------------------------------------------


def begin_influence(state: KingsburgTable) -> None:
    """Step b: the first player in turn order starts (tests enter a built position here)."""
    state.decision = Decision.INFLUENCE
    state.cursor = 0
    _next_influencer(state)


def _next_influencer(state: KingsburgTable) -> None:
    for _ in range(state.players):
        seat = state.turn_order[state.cursor]
        province = state.provinces[seat]
        if not province.passed:
            options = influence_options(province, state.court, state.envoy_holder == seat)
            if options:
                state.ask(seat, Decision.INFLUENCE, (*options, Pass()))
                return
            province.passed = True  # no legal placement left: the player must pass
        state.cursor = (state.cursor + 1) % state.players
    begin_gifts(state)


def _place(state: KingsburgTable, seat: int, action: Influence) -> None:
    province = state.provinces[seat]
    remove_dice(province.coloured, action.coloured)
    remove_dice(province.white, action.white)
    if action.plus_two:
        province.plus_two -= 1
    if action.market:
        province.market_used = True
    if action.envoy:
        state.envoy_holder = -1  # used: the token goes back to the calendar
    group = DiceGroup(seat, action.coloured, action.white, action.plus_two)
    state.court[action.advisor].append(group)


# -- c) the advisors' help, #1 to #18 ----------------------------------------------------------


def begin_gifts(state: KingsburgTable) -> None:
    state.gift_advisor, state.gift_group = 1, 0
    _next_gift(state)


def _next_gift(state: KingsburgTable) -> None:
    while state.gift_advisor <= 18:
        groups = state.court[state.gift_advisor]
        while state.gift_group < len(groups):
            owner = groups[state.gift_group].owner
            state.gift_group += 1
            if owner == NEUTRAL:
                continue
            choices = give_gift(state.gift_advisor, state.provinces[owner], state.year)
            if len(choices) == 1:
                apply_choice(state.provinces[owner], choices[0])
            elif choices:
                state.ask(owner, Decision.GIFT, choices)
                return
        state.gift_advisor += 1
        state.gift_group = 0
    state.court = [[] for _ in range(19)]  # dice, tokens and white dice go back
    for province in state.provinces:
        province.coloured, province.white = [], []
    begin_construction(state)


# -- d) construction -------------------------------------------------------------------------


def begin_construction(state: KingsburgTable) -> None:
    state.decision = Decision.CONSTRUCT
    state.queue = list(state.turn_order)
    _next_builder(state)


def _next_builder(state: KingsburgTable) -> None:
    while state.queue:
        seat = state.queue[0]
        province = state.provinces[seat]
        allowed = province.builds == 0 or (province.builds == 1 and state.envoy_holder == seat)
        options = province.buildable() if allowed else []
        if options:
            legal = (*(Construct(building) for building in options), Pass())
            state.ask(seat, Decision.CONSTRUCT, legal)
            return
        state.queue.pop(0)
    end_season(state)


def _construct(state: KingsburgTable, seat: int, building: Building) -> None:
    province = state.provinces[seat]
    province.pay(*province.cost(building))
    province.buildings.add(building)
    province.vp += BUILDING_FACTS[building].vp
    province.builds += 1
    if province.builds == 2:
        state.envoy_holder = -1  # the second building of the season spends the Envoy


# -- the end of the season: Inn, Embassy, Town Hall --------------------------------------------


def end_season(state: KingsburgTable) -> None:
    """The Inn's token (summer only) and the Embassy's VP, then the Town Hall offers."""
    for province in state.provinces:
        if state.phase is Phase.SUMMER and province.owns(Building.INN):
            province.plus_two += 1
        if province.owns(Building.EMBASSY):
            province.vp += 1
    state.queue = [seat for seat in state.turn_order if _town_hall_offers(state, seat)]
    _next_town_hall(state)


def _town_hall_offers(state: KingsburgTable, seat: int) -> tuple[UseTownHall, ...]:
    province = state.provinces[seat]
    if not province.owns(Building.TOWN_HALL) or province.town_hall_used:
        return ()
    held = (province.plus_two, province.gold, province.wood, province.stone)
    return tuple(UseTownHall(offer) for offer, count in zip(Offering, held, strict=True) if count)


def _use_town_hall(state: KingsburgTable, seat: int, offering: Offering) -> None:
    province = state.provinces[seat]
    if offering is Offering.PLUS_TWO:
        province.plus_two -= 1
    else:
        kind = ("gold", "wood", "stone")[offering.value - 2]
        province.pay(**{kind: 1})
    province.town_hall_used = True
    province.vp += 1


def _next_town_hall(state: KingsburgTable) -> None:
    if state.queue:
        seat = state.queue[0]
        state.ask(seat, Decision.TOWN_HALL, (*_town_hall_offers(state, seat), Pass()))
        return
    _finish_season(state)


def _finish_season(state: KingsburgTable) -> None:
    if state.phase is Phase.SPRING:
        for province in state.provinces:
            province.aid_die = False
        state.kings_reward()
        begin(state, Phase.SUMMER)
    elif state.phase is Phase.SUMMER:
        state.kings_envoy()
        begin(state, Phase.AUTUMN)
    else:
        state.begin_recruitment()
