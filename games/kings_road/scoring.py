"""Scoring a region: places by influence, ties, nobles and the noble chain bonus.

Decisions where the rulebook is silent:
- A tie among the players in places p..q is paid the banner value of place q, and nothing when
  place q is beyond the banner or beyond the ``players - 1`` places that are paid.
- The noble chain is every region reachable from the scored region along roads through regions
  where the same player has a noble (a connected group, counted once each), so a branching
  chain through Temple Ruins or Zin Kai's Deep counts all its branches.
- Under Permanent Nobles every noble in the scored region earns its owner's chain bonus.
"""

from __future__ import annotations

from collections.abc import Sequence

from kingmaker.games.kings_road.board import Board
from kingmaker.games.kings_road.data import REGIONS


def place_points(influence: Sequence[int], values: Sequence[int], players: int) -> list[int]:
    """Points each seat earns from ``influence`` in a region paying ``values``.

    Only seats with at least one influence compete; at most ``players - 1`` places are paid;
    tied seats all get the value of the lowest place they share.
    """
    paid = min(len(values), players - 1)
    points = [0] * len(influence)
    levels = sorted({count for count in influence if count > 0}, reverse=True)
    place = 0
    for level in levels:
        tied = [seat for seat, count in enumerate(influence) if count == level]
        lowest = place + len(tied) - 1
        if lowest < paid:
            for seat in tied:
                points[seat] = values[lowest]
        place += len(tied)
    return points


def single_leader(influence: Sequence[int]) -> int | None:
    """The seat with strictly the most influence (at least one), or None on a tie or nobody."""
    most = max(influence)
    leaders = [seat for seat, count in enumerate(influence) if count == most]
    return leaders[0] if most > 0 and len(leaders) == 1 else None


def noble_chain(noble_regions: set[int], start: int) -> int:
    """How many regions of ``noble_regions`` are connected to ``start`` along roads, itself included."""
    if start not in noble_regions:
        return 0
    seen = {start}
    frontier = [start]
    while frontier:
        region = frontier.pop()
        for neighbour in REGIONS[region].roads:
            if neighbour in noble_regions and neighbour not in seen:
                seen.add(neighbour)
                frontier.append(neighbour)
    return len(seen)


def score_region(board: Board, region: int, with_nobles: bool = True) -> list[int]:
    """Score ``region`` on ``board`` and return the points each seat earns.

    With nobles (every ordinary scoring): a single leader crowns a noble, then every noble in
    the region earns one point per region in its owner's connected chain. Without nobles (the
    final scoring): influence only; existing nobles still count as influence. Either way the
    non-noble markers then go back to their owners.
    """
    influence = board.influence(region)
    points = place_points(influence, REGIONS[region].values, board.players)
    if with_nobles:
        leader = single_leader(influence)
        if leader is not None:
            board.crown(leader, region)
        for seat in board.nobles[region]:
            points[seat] += noble_chain(board.noble_regions(seat), region)
    board.clear(region)
    return points
