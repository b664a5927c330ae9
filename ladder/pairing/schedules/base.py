"""The base every schedule shares: seeds, seat rotation and duplicate play.

A schedule hands out *groups*: the bots that meet in one game, already in seat order. Each group
gets the next seed, derived from the league seed and the group's index, so the same league seed
always yields the same seeds (a league can be re-run from them).

Duplicate play (an option of every format) plays each group once for every cyclic rotation of its
seats, all with the group's one seed: every bot sits in every seat of the same deal, which cancels
most of the luck of the seat and of the draw. The matches of one group share ``duplicate_group``.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from kingmaker.ladder.pairing.schedules.pool import Pool

SEED_BITS = 62
"""Seeds fit a signed 64-bit column with room to spare."""


def derive_seed(league_seed: int, index: int) -> int:
    """The seed of group ``index`` of a league: stable across Python versions and machines."""
    digest = hashlib.sha256(f"kingmaker-league:{league_seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


@dataclass(frozen=True)
class PlannedMatch:
    ordinal: int
    """Position in the league's plan, from 0."""
    bots: tuple[int, ...]
    """Bot ids in seat order: seat i is ``bots[i]``."""
    seed: int
    group: int
    """Index of the group this match plays (its seed index)."""
    duplicate_group: int | None
    """The group index when the league plays duplicate, else None."""


@dataclass(frozen=True)
class Progress:
    """What a schedule may know when asked for more: the league so far."""

    groups_planned: int = 0
    matches_planned: int = 0
    elapsed_s: float = 0.0
    """Seconds since the league started."""
    pool: Pool | None = None
    """A continuous ladder's present bots, their counts, ratings and meetings (``pool``)."""


def check_entrants(bots: Sequence[int], players: int) -> None:
    """``ValueError`` unless these bots, each entered once, can fill a match of ``players`` seats."""
    if len(set(bots)) != len(bots):
        raise ValueError("a bot is entered twice")
    if len(bots) < players:
        raise ValueError(f"{len(bots)} bots cannot fill a {players}-seat match")


def rotations(seated: Sequence[int]) -> list[tuple[int, ...]]:
    """Every cyclic rotation of a seating, starting with itself."""
    order = tuple(seated)
    return [order[shift:] + order[:shift] for shift in range(len(order))]


class SeatBalancer:
    """Chooses, for each group in turn, the rotation that puts its bots where they have sat least.

    A bot's *excess* in a seat is how often it sat there beyond its fair share so far
    (``players * times in that seat - games played``). Greedy over the schedule's order, the
    rotation with the smallest excess in the first seat wins (the first seat matters most in most
    games), then the smallest total excess. So over a round robin each bot takes the first seat
    about equally often, and no bot keeps it. A ``focus`` bot (a gauntlet's challenger) is balanced
    before everything else, so it cycles through the seats evenly.
    """

    def __init__(self, players: int, focus: int | None = None) -> None:
        self.players = players
        self.focus = focus
        self.seat_counts: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self.games: dict[int, int] = defaultdict(int)

    def seat(self, group: Sequence[int]) -> tuple[int, ...]:
        best = min(rotations(group), key=self._cost)
        for seat, bot in enumerate(best):
            self.seat_counts[bot][seat] += 1
            self.games[bot] += 1
        return best

    def _excess(self, bot: int, seat: int) -> int:
        return self.players * self.seat_counts[bot][seat] - self.games[bot]

    def _cost(self, seated: tuple[int, ...]) -> tuple[int, int, int]:
        focus = seated.index(self.focus) if self.focus in seated else None
        focus_excess = 0 if focus is None else self._excess(seated[focus], focus)
        total = sum(self._excess(bot, seat) for seat, bot in enumerate(seated))
        return focus_excess, self._excess(seated[0], 0), total


class Schedule(ABC):
    """A league's plan, handed out group by group."""

    def __init__(self, players: int, league_seed: int, *, duplicate: bool = False) -> None:
        if players < 2:
            raise ValueError("a match needs at least 2 seats")
        self.players = players
        self.league_seed = league_seed
        self.duplicate = duplicate

    @abstractmethod
    def next_group(self, progress: Progress) -> tuple[int, ...] | None:
        """The bots of the next group in seat order, or None when the schedule is done."""

    def next_matches(self, progress: Progress) -> list[PlannedMatch]:
        """The matches of the next group (one, or one per rotation in duplicate); [] when done."""
        seated = self.next_group(progress)
        if seated is None:
            return []
        index = progress.groups_planned
        seed = derive_seed(self.league_seed, index)
        seatings = rotations(seated) if self.duplicate else [seated]
        return [
            PlannedMatch(
                ordinal=progress.matches_planned + offset,
                bots=bots,
                seed=seed,
                group=index,
                duplicate_group=index if self.duplicate else None,
            )
            for offset, bots in enumerate(seatings)
        ]


class FixedSchedule(Schedule):
    """A schedule known in full up front (round robin, gauntlet): ``plan()`` lists it all."""

    def __init__(
        self,
        bots: Sequence[int],
        players: int,
        league_seed: int,
        *,
        duplicate: bool = False,
        rounds: int = 1,
    ) -> None:
        super().__init__(players, league_seed, duplicate=duplicate)
        check_entrants(bots, players)
        self.bots = tuple(bots)
        if rounds < 1:
            raise ValueError("rounds must be at least 1")
        self.rounds = rounds
        self.focus: int | None = None
        """A bot whose seats are balanced before all others' (see ``SeatBalancer``)."""
        self._seated: list[tuple[int, ...]] | None = None

    @abstractmethod
    def groups(self) -> list[tuple[int, ...]]:
        """The groups of one round, each in entry order (seats are chosen afterwards)."""

    @abstractmethod
    def groups_per_round(self) -> int:
        """How many groups ``groups()`` lists, counted without listing them."""

    def size(self) -> int:
        """How many matches the whole plan holds, counted before anything is made (a request for
        a huge plan is refused by its size, not by running out of memory making it)."""
        return self.groups_per_round() * self.rounds * (self.players if self.duplicate else 1)

    def seated_groups(self) -> list[tuple[int, ...]]:
        if self._seated is None:
            balancer = SeatBalancer(self.players, self.focus)
            one_round = self.groups()
            self._seated = [balancer.seat(group) for _ in range(self.rounds) for group in one_round]
        return self._seated

    def next_group(self, progress: Progress) -> tuple[int, ...] | None:
        seated = self.seated_groups()
        index = progress.groups_planned
        return seated[index] if index < len(seated) else None

    def plan(self) -> list[PlannedMatch]:
        """Every match of the schedule, in order."""
        planned: list[PlannedMatch] = []
        groups = 0
        while batch := self.next_matches(Progress(groups_planned=groups, matches_planned=len(planned))):
            planned.extend(batch)
            groups += 1
        return planned
