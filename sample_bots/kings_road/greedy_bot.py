"""A King's Road bot that plays the cards worth the most points soon, from the observation alone.

For every legal play it pictures the board after the play (its own markers added, the other
seats' markers as they stand) and adds up, over the eight regions, what it would earn in each
minus what the others would earn there, weighting each region by how soon it scores: the
regions scoring this round count in full, the next ones less and less. A Dragon is worth
playing when the region it brings forward pays this bot more now than later; the Witch is
kept for a round whose King's region is rich, where choosing last (after seeing every other
play on the board) is worth the most. A little random noise picks among plays of nearly equal
worth: two copies of a deterministic bot would mirror each other, tie in every region and never
score (see the round limit in the game's docstring). Run it against a server with
``python sample_bots/kings_road/greedy_bot.py`` (``KINGMAKER_SERVER`` and ``KINGMAKER_TOKEN`` set).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from kingmaker.games.kings_road import Card, Observation, Phase, PlayCards
from kingmaker.games.kings_road.data import REGIONS, ROUTE, WINNING_SCORE, route_from
from kingmaker.games.kings_road.scoring import place_points, single_leader
from kingmaker.sample_bots.seeding import position_rng, seed_argument
from kingmaker.sdk import Bot, Request

DECAY = 0.55
"""How much a region's points are worth per round of waiting before it scores."""
MARKER_COST = 0.25
"""A placed marker is gone until its region scores: a small price per marker."""
NOBLE_WORTH = 1.5
"""A noble pays its bonus now and keeps counting as influence later."""
SPECIAL_COST = 1.5
"""The Dragon and the Witch can be played once: spend them only for a clear gain."""
WITCH_REGION_PRIZE = 7
"""Play the Witch when the King stands in a region whose first prize is at least this."""
OPPONENT_ADDS = ((0, 0.35), (1, 0.3), (2, 0.25), (3, 0.1))
"""Markers each other seat may add, at the same time, to a region scoring this round."""
NOISE = 0.3
"""Up to this much random worth is added to each play, to break ties and mirroring."""


@dataclass
class Seen:
    """What one position's plays share: region edges by markers, and weights by dragons."""

    edges: dict[tuple[int, ...], float] = field(default_factory=dict)
    weights: dict[int, tuple[tuple[int, ...], dict[int, float]]] = field(default_factory=dict)


class GreedyBot(Bot):
    name = "kings_road_greedy"

    def __init__(self, seed: int | None = None, by_position: bool = False) -> None:
        self._random = random.Random(seed)
        self._seed = seed
        self._by_position = by_position and seed is not None
        """Draw from the seed and the position (see sample_bots/seeding.py), not one generator."""

    def act(self, request: Request) -> int:
        observation: Observation = request.observation
        plays: tuple[PlayCards, ...] = request.legal_actions
        rng = position_rng(self._seed or 0, request) if self._by_position else self._random
        noise = rng.uniform
        values = [value + noise(0, NOISE) for value in self.values(observation, plays)]
        return max(range(len(plays)), key=values.__getitem__)

    def values(self, observation: Observation, plays: tuple[PlayCards, ...]) -> list[float]:
        """Each legal play's worth before the noise; the bot plays the largest plus noise."""
        # A play changes one to three regions: the others' edges are shared by every play.
        seen = Seen()
        return [self.value(observation, play, seen) for play in plays]

    def value(self, observation: Observation, play: PlayCards, seen: Seen | None = None) -> float:
        """How good ``play`` looks: weighted point difference after it, less what it spends.

        ``seen`` keeps region edges and weights between the plays of one position."""
        if play.cards == (Card.WITCH,):
            return self.witch_value(observation)
        seen = Seen() if seen is None else seen
        seat = observation.seat
        markers = {region.number: list(region.markers) for region in observation.regions}
        placed = 0
        for position, card in enumerate(play.cards):
            target = card.region
            if card is Card.KNIGHT and position > 0:
                target = play.cards[position - 1].region
            if target is not None:
                markers[target][seat] += 1
                placed += 1
        dragons = observation.dragons + (1 if Card.DRAGON in play.cards else 0)
        if dragons not in seen.weights:
            seen.weights[dragons] = (
                route_from(observation.king_region, 1 + dragons),
                self.weights(observation, dragons),
            )
        scored_now, region_weights = seen.weights[dragons]
        total = 0.0
        for region, weight in region_weights.items():
            contested = region in scored_now and observation.phase is Phase.CHOOSE_CARDS
            key = (region, contested, *markers[region])
            edge = seen.edges.get(key)
            if edge is None:
                if contested:
                    edge = self.contested_edge(observation, region, markers[region])
                else:
                    edge = self.region_edge(observation, region, markers[region])
                seen.edges[key] = edge
            total += weight * edge
        total -= MARKER_COST * placed
        if Card.DRAGON in play.cards:
            total -= SPECIAL_COST
        return total

    def weights(self, observation: Observation, dragons: int) -> dict[int, float]:
        """How much each region's result counts now: 1 for this round's regions, less later."""
        scored = route_from(observation.king_region, 1 + dragons)
        ending = max(p.score for p in observation.standings) >= WINNING_SCORE - 8
        weights: dict[int, float] = {}
        for wait, region in enumerate(route_from(observation.king_region, len(ROUTE))):
            if region in scored:
                weights[region] = 1.0
            else:
                # Near the end every region may score in the final scoring: keep them dear.
                weights[region] = 0.8 if ending else DECAY ** (wait - len(scored) + 1)
        return weights

    def contested_edge(self, observation: Observation, region: int, markers: list[int]) -> float:
        """The edge in a region scoring this round, expected over what the others add to it."""
        seat = observation.seat
        expected = 0.0
        for added, chance in OPPONENT_ADDS:
            reply = [
                count if other == seat else count + min(added, observation.standings[other].supply)
                for other, count in enumerate(markers)
            ]
            expected += chance * self.region_edge(observation, region, reply)
        return expected

    def region_edge(self, observation: Observation, region: int, markers: list[int]) -> float:
        """This bot's points in ``region`` minus the best other seat's, if it scored now."""
        seat = observation.seat
        influence = list(markers)
        for holder in observation.regions[region - 1].nobles:
            influence[holder] += 1
        points = place_points(influence, REGIONS[region].values, observation.players)
        mine = points[seat] + (NOBLE_WORTH if single_leader(influence) == seat else 0.0)
        others = max(points[other] for other in range(observation.players) if other != seat)
        return mine - others

    def witch_value(self, observation: Observation) -> float:
        """Worth playing only in a rich round, and only in the first choice of the round."""
        prize = REGIONS[observation.king_region].values[0]
        if observation.phase is Phase.CHOOSE_CARDS and prize >= WITCH_REGION_PRIZE:
            return float("inf")
        return float("-inf")


if __name__ == "__main__":
    import sys

    from kingmaker.sdk import run

    seed = seed_argument(sys.argv)
    run(GreedyBot(seed, by_position=seed is not None))
