"""The King's Road board: regions, banners, the roads and the King's route.

Every printed fact lives here, in one table, so the printed banner values can replace the
project's edition without touching the rules. Source: section 2 of the project's rules-data
README. Only the Dark Tower banner (5-4-2-1) is printed in the rulebook; the other seven banners
are this project's edition, copied from the rules-data table: regions 1-4 pay three places,
5-8 pay four (the README's prose says "three regions pay three places", but its table, whose
first prizes add up to the 42 it quotes, has four; the table is followed).
"""

from __future__ import annotations

from dataclasses import dataclass

MARKERS_PER_PLAYER = 20
WINNING_SCORE = 40
CARDS_PER_ROUND = 3
ROUND_LIMIT = 100
"""The project's own end: the last round if nobody has reached 40 by then (see the package doc)."""
START_REGION = 1
"""The King starts in Zin Kai's Deep, the region with 1 on its banner."""


@dataclass(frozen=True)
class RegionFacts:
    """One region as printed on the board."""

    number: int
    """The number at the top of the banner, 1 to 8; regions are named by it everywhere."""
    name: str
    values: tuple[int, ...]
    """Points for first, second, third (and fourth) place."""
    roads: tuple[int, ...]
    """The regions one road away (used for noble chains)."""


REGIONS: dict[int, RegionFacts] = {
    facts.number: facts
    for facts in (
        RegionFacts(1, "Zin Kai's Deep", (3, 2, 1), (6, 8, 3)),
        RegionFacts(2, "Dragon's Lair", (4, 2, 1), (5, 8)),
        RegionFacts(3, "Temple Ruins", (4, 3, 1), (7, 5, 1)),
        RegionFacts(4, "Savage Hills", (5, 3, 2), (6, 7)),
        RegionFacts(5, "Dark Tower", (5, 4, 2, 1), (3, 2)),
        RegionFacts(6, "Wizard's Tower", (6, 4, 2, 1), (1, 4)),
        RegionFacts(7, "King's Altar", (7, 5, 3, 1), (4, 3)),
        RegionFacts(8, "King's Castle", (8, 6, 4, 2), (2, 1)),
    )
}

ROUTE: tuple[int, ...] = (1, 6, 4, 7, 3, 5, 2, 8)
"""The clockwise order in which the King travels and regions score (then back to 1).
The road between 3 and 1 is not on the route."""


def next_on_route(region: int) -> int:
    """The region after ``region`` in the King's clockwise order."""
    return ROUTE[(ROUTE.index(region) + 1) % len(ROUTE)]


def route_from(region: int, count: int) -> tuple[int, ...]:
    """``count`` regions along the route, starting with ``region`` itself."""
    start = ROUTE.index(region)
    return tuple(ROUTE[(start + step) % len(ROUTE)] for step in range(count))
