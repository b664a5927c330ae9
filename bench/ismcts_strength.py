"""OpenSpiel's ISMCTS (``sample_bots/ismcts_bot.py``) against a game's sample bot: two-seat
duplicate pairs, A's score per match 1 / 1/2 / 0, the 95% Wilson interval over matches.

    nice -n 5 python bench/ismcts_strength.py [--plain] [--simulations N] [--against SPEC]
                                               [--seeds 200] [--seed 1] [--jobs 1] [GAME ...]

The guided ISMCTS (heuristic prior, widening, heuristic rollouts) unless ``--plain`` asks for
OpenSpiel's own with random rollouts. ``--simulations`` fixes the simulations per decision (a
count, not a time, so the machine's load does not change the bot's strength; it is passed to the
worker processes as ``KINGMAKER_ISMCTS_GUIDED_SIMULATIONS`` or ``KINGMAKER_ISMCTS_SIMULATIONS``).
``--against`` is any bot ``kingmaker duel`` takes (``heuristic``, ``search:N``, ...).

First the ISMCTS bot's think time: CPU seconds of its first ``--think`` decisions in a match of
the first seed, median (min-max). Then one line per seed as it finishes, so a run cut short
still says what it measured.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

from kingmaker.sample_bots.ismcts_bot import GAMES
from kingmaker.sdk.bot import Request
from kingmaker.sdk.local import play_local
from kingmaker.sdk.sprt import wilson
from kingmaker.server.cli.duel import bot_factory, seed_scores


def bot_spec(game: str, plain: bool) -> str:
    kind = "Ismcts" if plain else "GuidedIsmcts"
    return "kingmaker.sample_bots.ismcts_bot:" + "".join(w.title() for w in game.split("_")) + kind


class _Timed(Exception):
    """Enough decisions timed: ends the match."""


def think_seconds(game: str, spec: str, against: str, seed: int, decisions: int) -> list[float]:
    """CPU seconds of each of the ISMCTS bot's first ``decisions`` decisions (seat 0) in a match
    against ``against``: CPU time, so the machine's load does not inflate it."""
    bot = bot_factory(spec, game)(seed)
    act = bot.act
    seconds: list[float] = []

    def timed(request: Request) -> object:
        started = time.process_time()
        chosen = act(request)
        seconds.append(time.process_time() - started)
        if len(seconds) >= decisions:
            raise _Timed
        return chosen

    bot.act = timed  # type: ignore[method-assign]
    with contextlib.suppress(_Timed):
        play_local(game, [bot, bot_factory(against, game)(seed + 1)], seed=seed)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", default=list(GAMES))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--against", default="heuristic", help="the opponent, as kingmaker duel names it")
    parser.add_argument("--simulations", type=int, help="simulations per decision")
    parser.add_argument("--plain", action="store_true", help="OpenSpiel's ISMCTS with random rollouts")
    parser.add_argument("--think", type=int, default=10, help="decisions to time (CPU), before the pairs")
    args = parser.parse_args()
    variable = "KINGMAKER_ISMCTS_SIMULATIONS" if args.plain else "KINGMAKER_ISMCTS_GUIDED_SIMULATIONS"
    if args.simulations:
        os.environ[variable] = str(args.simulations)
    simulations = os.environ.get(variable, "64" if args.plain else "32")
    for game in args.games:
        spec = bot_spec(game, args.plain)
        label = f"{game} {spec.rpartition(':')[2]}({simulations}) vs {args.against}"
        if args.think:
            thinking = think_seconds(game, spec, args.against, args.seed, args.think)
            print(
                f"{label}: think time {statistics.median(thinking):.2f} CPU s/decision"
                f" ({min(thinking):.2f}-{max(thinking):.2f}) over its first {len(thinking)} decisions",
                flush=True,
            )
        score, matches, match_seconds = 0.0, 0, []
        seeds = range(args.seed, args.seed + args.seeds)
        for number, played in enumerate(seed_scores(game, spec, args.against, 2, seeds, args.jobs)):
            score += sum(played.scores)
            matches += len(played.scores)
            match_seconds.extend(played.seconds)
            low, high = wilson(score, matches)
            print(
                f"{label}: seed {seeds[number]} {played.scores}, {matches // 2} pairs,"
                f" score {score / matches:.3f} [{low:.3f}, {high:.3f}],"
                f" {statistics.median(match_seconds):.1f} s/match",
                flush=True,
            )


if __name__ == "__main__":
    main()
