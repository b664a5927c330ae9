"""The Kingsville card set: the types printed on cards, and the loader for ``cards.json``.

The rulebook names wonders, orders, people, symbols and castle slots but prints none of them,
so this project designed its own set (see docs/kingsville-edition.md for every choice and its
reason). The data lives in one file, ``cards.json``, shipped with this package; this module turns
it into frozen values that the engine and the observations share, so a bot sees exactly the
card text the engine executes.

Reading the data file is the one piece of I/O in this game: it happens once, at import, and
reads only a file of this package.
"""

from __future__ import annotations

import enum
import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any


class Symbol(enum.Enum):
    """The role icons people carry; an order step with a role icon needs its symbol."""

    TOOLS = 1
    ARTS = 2
    DIPLOMACY = 3
    TRADE = 4


class PersonType(enum.Enum):
    """The four basic people, the three advanced ones, and the King."""

    WORKER = 1
    ARTIST = 2
    DIPLOMAT = 3
    MERCHANT = 4
    TRADER = 5
    ARCHITECT = 6
    SQUIRE = 7
    KING = 8


class Per(enum.Enum):
    """What an Age III wonder's special points are counted per (FLAT: once)."""

    FLAT = 1
    FARM = 2
    THEATRE = 3
    PERSON = 4
    ADVANCED_PERSON = 5
    WONDER = 6
    ORDER = 7


@dataclass(frozen=True)
class Resources:
    """An amount of gold, wood and points (points appear only in gains and benefits)."""

    gold: int = 0
    wood: int = 0
    points: int = 0


@dataclass(frozen=True)
class Step:
    """One action printed on an order, read left to right.

    ``role``: the role icon before it (None: anyone carries it out). ``cost``: what stands left of
    the arrow; a step with a cost has an arrow, so it is optional and happens only if paid.
    """

    role: Symbol | None
    cost: Resources
    gain: Resources

    @property
    def optional(self) -> bool:
        return self.cost != Resources()


@dataclass(frozen=True)
class OrderCard:
    """An order: given to a person, it is carried out at the end of every turn of its owner."""

    name: str
    age: int
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class FinalPoints:
    """An Age III wonder's special points at the end of the game: ``points`` per ``per``."""

    points: int
    per: Per


@dataclass(frozen=True)
class WonderCard:
    """A wonder: paid for from the display, kept in the castle (no slot).

    ``age_benefit`` is gained at every end of age from the one it was built in onwards (Ages I
    and II). ``final_points`` are the special points of Age III wonders.
    """

    name: str
    age: int
    cost: Resources
    age_benefit: Resources
    final_points: FinalPoints | None


@dataclass(frozen=True)
class PersonKind:
    """A kind of person: its symbols, and how many exist in the common supply."""

    person: PersonType
    advanced: bool
    symbols: tuple[Symbol, ...]
    supply: int


@dataclass(frozen=True)
class DeckEntry:
    """An order with its copies: ``copies[i]`` are added to the deck from ``i + 2`` players up."""

    card: OrderCard
    copies: tuple[int, ...]


@dataclass(frozen=True)
class WonderEntry:
    """A wonder and the smallest player count whose deck includes it."""

    card: WonderCard
    players: int


@dataclass(frozen=True)
class CardSet:
    """The whole edition: castle size, starting resources, people and the three ages' cards."""

    edition: str
    castle_slots: int
    starting: Resources
    people: tuple[PersonKind, ...]
    orders: tuple[tuple[DeckEntry, ...], ...]
    """Per age (index 0 is Age I)."""
    wonders: tuple[tuple[WonderEntry, ...], ...]

    def kind(self, person: PersonType) -> PersonKind:
        return self._kinds[person]

    @functools.cached_property
    def _kinds(self) -> dict[PersonType, PersonKind]:
        # kind() runs for every person at every order step; a dict beats scanning ``people``.
        # The first kind listed for a person wins, as the scan's did.
        kinds: dict[PersonType, PersonKind] = {}
        for kind in self.people:
            kinds.setdefault(kind.person, kind)
        return kinds

    def order_deck(self, age: int, players: int) -> list[OrderCard]:
        """Age ``age``'s orders for ``players`` players, unshuffled."""
        return [entry.card for entry in self.orders[age - 1] for _ in range(sum(entry.copies[: players - 1]))]

    def wonder_deck(self, age: int, players: int) -> list[WonderCard]:
        """Age ``age``'s wonders for ``players`` players, unshuffled."""
        return [entry.card for entry in self.wonders[age - 1] if entry.players <= players]

    def order_named(self, name: str) -> OrderCard:
        return next(e.card for age in self.orders for e in age if e.card.name == name)

    def wonder_named(self, name: str) -> WonderCard:
        return next(e.card for age in self.wonders for e in age if e.card.name == name)


def _resources(data: dict[str, int] | None) -> Resources:
    data = data or {}
    return Resources(data.get("gold", 0), data.get("wood", 0), data.get("points", 0))


def _step(data: dict[str, Any]) -> Step:
    role = data.get("role")
    return Step(Symbol[role] if role else None, _resources(data.get("cost")), _resources(data["gain"]))


def _wonder(age: int, data: dict[str, Any]) -> WonderEntry:
    final = data.get("final_points")
    card = WonderCard(
        name=data["name"],
        age=age,
        cost=_resources(data["cost"]),
        age_benefit=_resources(data.get("age_benefit")),
        final_points=FinalPoints(final["points"], Per[final["per"]]) if final else None,
    )
    return WonderEntry(card, data["players"])


def parse(data: dict[str, Any]) -> CardSet:
    """A ``CardSet`` from the parsed JSON (separate from loading so tests can feed variants)."""
    ages = sorted(data["ages"], key=lambda age: int(age["age"]))
    return CardSet(
        edition=data["edition"],
        castle_slots=data["castle_slots"],
        starting=_resources(data["starting"]),
        people=tuple(
            PersonKind(
                PersonType[p["type"]],
                p["advanced"],
                tuple(Symbol[s] for s in p["symbols"]),
                p["supply"],
            )
            for p in data["people"]
        ),
        orders=tuple(
            tuple(
                DeckEntry(
                    OrderCard(o["name"], age["age"], tuple(_step(s) for s in o["steps"])),
                    tuple(o["copies"]),
                )
                for o in age["orders"]
            )
            for age in ages
        ),
        wonders=tuple(tuple(_wonder(age["age"], w) for w in age["wonders"]) for age in ages),
    )


@functools.cache
def card_set() -> CardSet:
    """The edition shipped in ``cards.json`` (read once)."""
    text = resources.files(__name__.rpartition(".")[0]).joinpath("cards.json").read_text(encoding="utf-8")
    return parse(json.loads(text))


CARDS = card_set()
