"""Is the search bot stronger than the heuristic bot, and does more search help? A win-rate table.

    python bench/search_strength.py [--seeds 12] [--seed 1] [--iterations N] [--pair both]
                                    [--jobs J] [GAME ...]

Per game, two-seat duplicate matches (every seed played with the seats swapped): search(N)
against the game's heuristic bot, and search(4N) against search(N). The search bot is the one
``kingmaker duel`` calls ``search:N`` (``sample_bots/search_bot.py``: guided by the game's
heuristic); N defaults to ``SMALL_BUDGETS``, per game, which keeps a match to seconds. The iteration
budgets make the result independent of the machine's load. A's score per match is 1 for the
better place, 1/2 for a tie, 0 otherwise; the interval is the 95% Wilson interval over matches,
and the fair share is 50%. It also prints seconds per match (median, min-max over matches); with
``--jobs`` seeds are played in that many processes at once (as ``kingmaker duel --jobs``).
"""

from __future__ import annotations

import argparse
import statistics

from rich.console import Console
from rich.table import Table

from kingmaker.games.registry import game_names
from kingmaker.sample_bots.search_bot import SMALL_BUDGETS
from kingmaker.sdk.sprt import wilson
from kingmaker.server.cli.duel import seed_scores


def duel_rate(game: str, a: str, b: str, seeds: range, jobs: int) -> tuple[float, int, list[float]]:
    """A's total score, the match count and each match's seconds."""
    score, matches, times = 0.0, 0, []
    for played in seed_scores(game, a, b, 2, seeds, jobs):
        score += sum(played.scores)
        matches += len(played.scores)
        times.extend(played.seconds)
    return score, matches, times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", default=game_names())
    parser.add_argument("--seeds", type=int, default=12, help="how many seeds")
    parser.add_argument("--seed", type=int, default=1, help="the first seed; seeds count up from it")
    parser.add_argument("--jobs", type=int, default=1, help="seeds played at once, each in a process")
    parser.add_argument("--iterations", type=int, help="search(1x) in every game (default: per game)")
    parser.add_argument(
        "--pair",
        choices=("both", "heuristic", "scaling"),
        default="both",
        help="only search(1x) vs heuristic, or only search(4x) vs search(1x)",
    )
    args = parser.parse_args()
    last = args.seed + args.seeds - 1
    table = Table(title=f"search strength (2 seats, duplicate, seeds {args.seed}-{last} x 2 seat orders)")
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
            score, matches, times = duel_rate(
                game, spec_a, spec_b, range(args.seed, args.seed + args.seeds), args.jobs
            )
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
