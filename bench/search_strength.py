"""Is the search bot stronger than the heuristic bot, and does more search help? A win-rate table.

    python bench/search_strength.py [--seeds 12] [--iterations N] [--pair both] [GAME ...]

Per game, two-seat duplicate matches (every seed played with the seats swapped): search(N)
against the game's heuristic bot, and search(4N) against search(N). The search bot is the one
``kingmaker duel`` calls ``search:N`` (``sample_bots/search_bot.py``: guided by the game's
heuristic); N defaults to ``SMALL_BUDGETS``, per game, which keeps a match to seconds. The iteration
budgets make the result independent of the machine's load. A's score per match is 1 for the
better place, 1/2 for a tie, 0 otherwise; the interval is the 95% Wilson interval over matches,
and the fair share is 50%. It also prints seconds per match (median, min-max over matches).
"""

from __future__ import annotations

import argparse
import statistics
import time

from rich.console import Console
from rich.table import Table

from kingmaker.games.registry import game_names
from kingmaker.sample_bots.search_bot import SMALL_BUDGETS
from kingmaker.sdk import play_local
from kingmaker.sdk.sprt import wilson
from kingmaker.server.cli.duel import BotFactory, bot_factory, pairwise_score


def duel_rate(game: str, a: BotFactory, b: BotFactory, seeds: int) -> tuple[float, int, list[float]]:
    """A's total score, the match count and each match's seconds."""
    score, times = 0.0, []
    for seed in range(1, seeds + 1):
        for a_first in (True, False):
            is_a = (a_first, not a_first)
            bots = [a(seed * 2 + seat) if mine else b(seed * 2 + seat) for seat, mine in enumerate(is_a)]
            started = time.perf_counter()
            result = play_local(game, bots, seed=seed).result
            times.append(time.perf_counter() - started)
            score += pairwise_score(result.ranks, is_a)
    return score, 2 * seeds, times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", default=game_names())
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--iterations", type=int, help="search(1x) in every game (default: per game)")
    parser.add_argument(
        "--pair",
        choices=("both", "heuristic", "scaling"),
        default="both",
        help="only search(1x) vs heuristic, or only search(4x) vs search(1x)",
    )
    args = parser.parse_args()
    table = Table(title=f"search strength (2 seats, duplicate, {args.seeds} seeds x 2 seat orders)")
    for column in ("game", "A", "B", "matches", "A score", "95% interval", "fair", "above fair", "s/match"):
        table.add_column(column)
    console = Console()
    for game in args.games:
        n = args.iterations or SMALL_BUDGETS[game]
        pairs = []
        if args.pair in ("both", "heuristic"):
            pairs.append((f"search:{n}", "heuristic"))
        if args.pair in ("both", "scaling"):
            pairs.append((f"search:{4 * n}", f"search:{n}"))
        for spec_a, spec_b in pairs:
            a, b = bot_factory(spec_a, game), bot_factory(spec_b, game)
            score, matches, times = duel_rate(game, a, b, args.seeds)
            low, high = wilson(score, matches)
            row = (
                game,
                spec_a,
                spec_b,
                str(matches),
                f"{score / matches:.1%}",
                f"{low:.1%} - {high:.1%}",
                "50%",
                "yes" if low > 0.5 else "no",
                f"{statistics.median(times):.1f} ({min(times):.1f}-{max(times):.1f})",
            )
            table.add_row(*row)
            console.print(" | ".join(row))
    console.print(table)


if __name__ == "__main__":
    main()
