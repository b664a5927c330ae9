"""OpenSpiel's ISMCTS (``sample_bots/ismcts_bot.py``) against each game's heuristic bot: two-seat
duplicate matches, A's score per match 1 / 1/2 / 0, the 95% Wilson interval over matches.

    python bench/ismcts_strength.py [--plain] [--seeds 10] [--jobs 1] [GAME ...]

The guided ISMCTS (heuristic prior, widening, heuristic rollouts; ``KINGMAKER_ISMCTS_GUIDED_
SIMULATIONS``, 32 by default) unless ``--plain`` asks for OpenSpiel's own with random rollouts
(``KINGMAKER_ISMCTS_SIMULATIONS``, 64).

Only the sequential games (Kingdoms, Kingsville): OpenSpiel's Python ISMCTS takes no simultaneous
game. Prints one line per seed as it finishes, so a run cut short still says what it measured.
"""

from __future__ import annotations

import argparse
import statistics

from kingmaker.sample_bots.ismcts_bot import GAMES, GUIDED_SIMULATIONS, SIMULATIONS
from kingmaker.sdk.sprt import wilson
from kingmaker.server.cli.duel import seed_scores


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--plain", action="store_true", help="OpenSpiel's ISMCTS with random rollouts")
    args = parser.parse_args()
    kind, simulations = ("Ismcts", SIMULATIONS) if args.plain else ("GuidedIsmcts", GUIDED_SIMULATIONS)
    for game in args.games:
        bot = "kingmaker.sample_bots.ismcts_bot:" + "".join(w.title() for w in game.split("_")) + kind
        score, matches, seconds = 0.0, 0, []
        seeds = range(args.seed, args.seed + args.seeds)
        for played in seed_scores(game, bot, "heuristic", 2, seeds, args.jobs):
            score += sum(played.scores)
            matches += len(played.scores)
            seconds.extend(played.seconds)
            low, high = wilson(score, matches)
            print(
                f"{game} {kind}({simulations}) vs heuristic: {matches // 2} pairs,"
                f" score {score / matches:.3f} [{low:.3f}, {high:.3f}],"
                f" {statistics.median(seconds):.0f} s/match",
                flush=True,
            )


if __name__ == "__main__":
    main()
