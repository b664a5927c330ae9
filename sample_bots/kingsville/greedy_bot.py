"""A Kingsville bot that values every legal action from the observation and takes the best.

No search: each action gets a value in points, from a few estimates a newcomer can follow:

- how many more turns this bot will play (in this age and in the whole game), guessed from the
  deck sizes; an order's value is what it yields per turn times the turns it will still run;
- gold and wood are worth about a point each while there is time to spend them, little at the end;
- a person is worth their final points plus the orders they can run, but only in a slot with a
  farm (else they are lost at the end of the age) and a theatre (else -5 at each end of age);
- farms and theatres are worth the person they protect (or will protect) and the majority bonus;
- a wonder is worth its place in the 4, 5, 6 ... row, its benefits at the ends of age to come,
  and its special points as the castle stands now.

Run it against a server: ``python -m kingmaker.sample_bots.kingsville.greedy_bot``.
"""

from __future__ import annotations

from kingmaker.games.kingsville.actions import (
    BuildFarm,
    BuildTheatre,
    BuildWonder,
    ChooseOptional,
    Recruit,
    TakeOrder,
    Upgrade,
)
from kingmaker.games.kingsville.cards import (
    CARDS,
    OrderCard,
    Per,
    PersonType,
    Resources,
    Symbol,
    WonderCard,
)
from kingmaker.games.kingsville.observation import KingsvilleObservation, PlayerView
from kingmaker.sdk import Bot, Request

TURNS_PER_AGE = 6
"""About how many turns each player gets in a full age (measured over greedy games)."""
PENALTY = 5
BONUS = 10


class GreedyBot(Bot):
    name = "kingsville-greedy"

    def act(self, request: Request) -> int:
        values = self.values(request.observation, request.legal_actions)
        return max(range(len(values)), key=values.__getitem__)

    def values(self, observation: KingsvilleObservation, legal: tuple[object, ...]) -> list[float]:
        """Each legal action's worth; the bot plays the largest (a search bot's guide, too)."""
        view = Estimate(observation)
        return [view.value(action) for action in legal]


class Estimate:
    """The numbers one decision needs, read once from the observation."""

    def __init__(self, obs: KingsvilleObservation) -> None:
        self.obs = obs
        self.me: PlayerView = obs.castles[obs.seat]
        self.others = [c for c in obs.castles if c.seat != obs.seat]
        if obs.final_round:
            self.turns_in_age = 0.0
            self.turns_left = 1.0
            self.age_ends_left = 0
        else:
            # The age ends when a deck runs dry: the orders deck usually goes first.
            self.turns_in_age = max(1.0, (obs.orders_in_deck + 1) / obs.players)
            self.turns_left = self.turns_in_age + (3 - obs.age) * TURNS_PER_AGE
            self.age_ends_left = 4 - obs.age
        self.resource = min(1.0, self.turns_left / 4) if not obs.final_round else 0.05

    # --- generic valuations ------------------------------------------------------------------

    def worth(self, amount: Resources) -> float:
        return (amount.gold + amount.wood) * self.resource + amount.points

    def income(self, order: OrderCard | None, symbols: tuple[Symbol, ...]) -> float:
        """What an order yields per turn for a person with ``symbols``."""
        if order is None:
            return 0.0
        total = 0.0
        for step in order.steps:
            if step.role is not None and step.role not in symbols:
                continue
            total += max(0.0, self.worth(step.gain) - self.worth(step.cost))
        return total

    def best_income(self, symbols: tuple[Symbol, ...]) -> float:
        return max((self.income(o, symbols) for o in self.obs.order_display), default=0.0)

    def slot_turns(self, slot: int) -> float:
        """How long an order in ``slot`` will run: to the end of the game if a farm keeps it."""
        return self.turns_left if slot < self.me.farms else self.turns_in_age

    def majority_gain(self, mine: int, theirs: list[int]) -> float:
        """Bonus won by having one more farm (or theatre) than now."""
        best = max(theirs)
        before = BONUS if mine >= best else 0
        after = BONUS if mine + 1 >= best else 0
        return (after - before) * 0.8

    def person_value(self, person: PersonType, slot: int) -> float:
        """A person in ``slot``: final points plus the orders they will run, if kept."""
        kind = CARDS.kind(person)
        points = 10 if kind.advanced else 5
        production = self.best_income(kind.symbols) * max(0.0, self.turns_left - 1) * 0.6
        value = points + production
        if slot >= self.me.farms:
            value *= 0.35  # lost at the end of the age unless a farm comes in time
        if slot >= self.me.theatres:
            value -= PENALTY * self.age_ends_left * 0.5
        return value

    # --- each action ----------------------------------------------------------------------

    def value(self, action: object) -> float:
        me = self.me
        if isinstance(action, ChooseOptional):
            pending = self.obs.pending
            assert pending is not None
            gain = self.worth(pending.step.gain) - self.worth(pending.step.cost)
            return gain if action.perform else 0.0
        if isinstance(action, TakeOrder):
            slot = me.slots[action.slot]
            order = next(o for o in self.obs.order_display if o.name == action.order)
            better = self.income(order, slot.symbols) - self.income(slot.order, slot.symbols)
            return better * self.slot_turns(action.slot) - 0.5
        if isinstance(action, Recruit):
            empty = next(s.index for s in me.slots if s.person is None)
            return self.person_value(action.person, empty) - 5 * self.resource
        if isinstance(action, Upgrade):
            slot = me.slots[action.slot]
            new = CARDS.kind(action.into).symbols
            better = self.income(slot.order, new) - self.income(slot.order, slot.symbols)
            value = 5 + better * self.slot_turns(action.slot)
            if action.slot >= me.farms:
                value *= 0.35
            return value - 10 * self.resource
        if isinstance(action, BuildFarm):
            return self.building_value(me.farms, True) - (2 + me.farms) * self.resource
        if isinstance(action, BuildTheatre):
            return self.building_value(me.theatres, False) - (2 + me.theatres) * self.resource
        if isinstance(action, BuildWonder):
            wonder = next(w for w in self.obs.wonder_display if w.name == action.wonder)
            return self.wonder_value(wonder) - self.worth(wonder.cost)
        return 0.0

    def building_value(self, slot: int, farm: bool) -> float:
        """A farm or theatre entering ``slot``: the person it protects, and the majority."""
        me = self.me
        theirs = [c.farms if farm else c.theatres for c in self.others]
        majority = self.majority_gain(me.farms if farm else me.theatres, theirs)
        person = me.slots[slot].person
        if farm:
            protects = 0.0
            if person is not None:
                kind = CARDS.kind(person)
                kept_income = self.income(me.slots[slot].order, kind.symbols)
                protects = (10 if kind.advanced else 5) + kept_income * (self.turns_left - self.turns_in_age)
            elif self.age_ends_left:
                protects = 4.0  # room for the next recruit
        else:
            shelter = PENALTY * self.age_ends_left
            protects = shelter if person is not None else shelter * 0.4
        return protects + majority

    def wonder_value(self, wonder: WonderCard) -> float:
        count = len(self.me.wonders)
        value = 4.0 + count + self.worth(wonder.age_benefit) * self.age_ends_left
        if wonder.final_points is not None:
            value += wonder.final_points.points * self.counted(wonder.final_points.per)
        # Every earlier Pantheon-like wonder gains from one more wonder.
        value += sum(
            w.final_points.points
            for w in self.me.wonders
            if w.final_points is not None and w.final_points.per is Per.WONDER
        )
        return value

    def counted(self, per: Per) -> int:
        me = self.me
        people = [s.person for s in me.slots if s.person is not None]
        return {
            Per.FLAT: 1,
            Per.FARM: me.farms,
            Per.THEATRE: me.theatres,
            Per.PERSON: len(people),
            Per.ADVANCED_PERSON: sum(1 for p in people if CARDS.kind(p).advanced),
            Per.WONDER: len(me.wonders) + 1,
            Per.ORDER: sum(1 for s in me.slots if s.order is not None),
        }[per]


if __name__ == "__main__":
    from kingmaker.sdk import run

    run(GreedyBot())
