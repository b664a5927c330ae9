"""Where every influence marker is: in a player's supply, on a region, or standing as a noble.

Each player owns twenty markers; the board only moves them between these three places, so
supply + markers on regions + nobles is always twenty for every seat.
"""

from __future__ import annotations

from kingmaker.games.kings_road.data import MARKERS_PER_PLAYER, REGIONS


class Board:
    """The eight regions and the players' supplies."""

    def __init__(self, players: int, permanent_nobles: bool = False) -> None:
        self.players = players
        self.permanent_nobles = permanent_nobles
        self.supply = [MARKERS_PER_PLAYER] * players
        self.markers: dict[int, list[int]] = {region: [0] * players for region in REGIONS}
        """region -> markers (not nobles) of each seat there."""
        self.nobles: dict[int, list[int]] = {region: [] for region in REGIONS}
        """region -> the seats holding a noble there, oldest first (one at most unless permanent)."""

    def copy(self) -> Board:
        """An independent copy, for ``KingsRoadState.clone``."""
        other = Board.__new__(Board)
        other.players = self.players
        other.permanent_nobles = self.permanent_nobles
        other.supply = list(self.supply)
        other.markers = {region: list(counts) for region, counts in self.markers.items()}
        other.nobles = {region: list(seats) for region, seats in self.nobles.items()}
        return other

    def place(self, seat: int, region: int) -> None:
        """Move one marker from ``seat``'s supply onto ``region``."""
        if self.supply[seat] <= 0:
            raise ValueError(f"seat {seat} has no marker left to place")
        self.supply[seat] -= 1
        self.markers[region][seat] += 1

    def influence(self, region: int) -> list[int]:
        """Each seat's influence in ``region``: its markers plus one for each of its nobles."""
        counts = list(self.markers[region])
        for seat in self.nobles[region]:
            counts[seat] += 1
        return counts

    def noble_regions(self, seat: int) -> set[int]:
        """The regions where ``seat`` has a noble."""
        return {region for region, seats in self.nobles.items() if seat in seats}

    def noble_count(self, seat: int) -> int:
        return sum(seats.count(seat) for seats in self.nobles.values())

    def crown(self, seat: int, region: int) -> None:
        """Make ``seat`` the noble of ``region`` with one of its markers there.

        Standard rules: an old noble of another seat goes back to its owner's supply; a seat
        that already holds the noble keeps it (it has nothing to replace). Permanent Nobles:
        nobles stack and are never removed, and a seat that already has one here adds none.
        """
        holders = self.nobles[region]
        if seat in holders:
            return
        if not self.permanent_nobles:
            for old in holders:
                self.supply[old] += 1
            holders.clear()
        self.markers[region][seat] -= 1
        holders.append(seat)

    def clear(self, region: int) -> None:
        """Every marker on ``region`` except the nobles goes back to its owner's supply."""
        for seat, count in enumerate(self.markers[region]):
            self.supply[seat] += count
        self.markers[region] = [0] * self.players

    def markers_owned(self, seat: int) -> int:
        """Supply + markers on regions + nobles: twenty, always."""
        on_regions = sum(counts[seat] for counts in self.markers.values())
        return self.supply[seat] + on_regions + self.noble_count(seat)
