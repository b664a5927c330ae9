"""Does a continuous ladder keep mixing? Bots of known strengths (spread evenly over 5 beta), 2 and 3
seats, 1,000 matches, planned by the matchmaker and rated by the ladder's TrueSkill, outcomes
drawn from TrueSkill's own model (``kingmaker.ladder.pairing.schedules.simulation``; no referee).

    .venv/bin/python bench/matchmaking.py [--seeds 12] [--matches 1000]

Per window of 200 matches: the pairs that met (of all pairs), and the largest share of any one
pair against its fair share (the window's meetings spread evenly over the pairs); at the end:
whether the standings order the known strengths (exactly, and the Spearman rank correlation).
Each is the median (min-max) over the league seeds, beside the reference: the matchmaker before
issue 26 (the anchor with fewest matches, seats to the lowest ``|mu gap| / beta + extra matches``),
on the same seeds. With 30 bots a 200-match window holds fewer meetings (200 or 600) than there are
pairs (435), so the whole run is shown as well.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table
from table import Spread

from kingmaker.ladder.pairing.schedules.base import Progress, Schedule, derive_seed
from kingmaker.ladder.pairing.schedules.pool import MemoryPool
from kingmaker.ladder.pairing.schedules.simulation import GAME, mixing, simulate, spearman, spread_strengths
from kingmaker.ladder.ratings.ratings import settings_for

WINDOW = 200
CASES = ((6, 2), (6, 3), (30, 2), (30, 3))


class FrozenMatchmaker(Schedule):
    """The reference: the matchmaker as it was before issue 26, which froze into fixed groups."""

    def next_group(self, progress: Progress) -> tuple[int, ...] | None:
        pool = progress.pool
        assert isinstance(pool, MemoryPool)
        beta = settings_for(GAME).beta
        coin = random.Random(derive_seed(self.league_seed, progress.groups_planned))
        tiebreak = {bot: coin.random() for bot in pool.ratings}

        def count(bot: int) -> int:
            return pool.counts.get(bot, 0)

        anchor = min(pool.ratings, key=lambda bot: (count(bot), -pool.ratings[bot][1], tiebreak[bot]))
        others = [bot for bot in pool.ratings if bot != anchor]
        fewest = min(count(bot) for bot in others)

        def cost(bot: int) -> tuple[float, float]:
            gap = abs(pool.ratings[bot][0] - pool.ratings[anchor][0]) / beta
            return gap + count(bot) - fewest, tiebreak[bot]

        chosen = [anchor, *sorted(others, key=cost)[: self.players - 1]]
        coin.shuffle(chosen)
        return tuple(chosen)


def spread(values: Sequence[float], digits: int = 2) -> str:
    return Spread.of(values).text(digits)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=12, help="league seeds per case")
    parser.add_argument("--matches", type=int, default=1000)
    args = parser.parse_args()
    table = Table(title=f"matchmaking: {args.matches:,} matches, {args.seeds} league seeds, median (min-max)")
    for column in ("bots", "seats", "matches", "pairs met", "reference", "largest share", "reference"):
        table.add_column(column)
    order = Table(title="the standings at the end against the known order")
    for column in ("bots", "seats", "exact order", "reference", "Spearman", "reference"):
        order.add_column(column)
    for bots, players in CASES:
        strengths = spread_strengths(bots, 5.0)
        ours = [simulate(strengths, players, args.matches, seed) for seed in range(args.seeds)]
        theirs = [
            simulate(strengths, players, args.matches, seed, FrozenMatchmaker(players, seed))
            for seed in range(args.seeds)
        ]
        stretches = [
            (f"{start + 1}-{start + WINDOW}", start, WINDOW) for start in range(0, args.matches, WINDOW)
        ]
        if bots > 6:
            stretches.append((f"1-{args.matches} (all)", 0, args.matches))
        for label, start, size in stretches:
            new = [mixing(ladder.matches[start : start + size], bots) for ladder in ours]
            old = [mixing(ladder.matches[start : start + size], bots) for ladder in theirs]
            table.add_row(
                str(bots), str(players), label,
                f"{spread([m.pairs_met for m in new], 0)} of {new[0].pairs}",
                spread([m.pairs_met for m in old], 0),
                spread([m.largest_share for m in new]),
                spread([m.largest_share for m in old]),
            )  # fmt: skip
        truth = sorted(strengths, key=lambda bot: -strengths[bot])
        exact = sum(ladder.standings() == truth for ladder in ours)
        exact_ref = sum(ladder.standings() == truth for ladder in theirs)
        order.add_row(
            str(bots), str(players), f"{exact} of {len(ours)}", f"{exact_ref} of {len(theirs)}",
            spread([spearman(ladder) for ladder in ours], 3),
            spread([spearman(ladder) for ladder in theirs], 3),
        )  # fmt: skip
    console = Console(width=max(Console().width, 130))  # the min-max columns need the room
    console.print(table)
    console.print(order)


if __name__ == "__main__":
    main()
