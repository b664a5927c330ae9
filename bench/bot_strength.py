"""How much stronger is bot A than bot B? Plays them through the local runner and prints a table.

    python bench/bot_strength.py kingdoms \
        kingmaker.sample_bots.kingdoms.greedy_bot:GreedyBot \
        kingmaker.sample_bots.random_bot:RandomBot --games 200

With ``--players N`` above 2, A takes one seat and B the others, A's seat rotating. A "win" is
rank 1 (a shared first place counts half); the interval is the 95% Wilson score interval.
"""

from __future__ import annotations

import argparse
import importlib
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from kingmaker.sdk import Bot, play_local
from kingmaker.sdk.sprt import wilson


def load(path: str) -> type[Bot]:
    module, _, name = path.partition(":")
    bot_class = getattr(importlib.import_module(module), name)
    assert issubclass(bot_class, Bot), f"{path} is not a Bot subclass"
    return bot_class


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("game")
    parser.add_argument("bot_a")
    parser.add_argument("bot_b")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    bot_a, bot_b = load(args.bot_a), load(args.bot_b)

    wins = 0.0
    ranks: Counter[int] = Counter()
    started = time.perf_counter()
    for seed in range(args.games):
        a_seat = seed % args.players
        bots = [bot_a() if seat == a_seat else bot_b() for seat in range(args.players)]
        result = play_local(args.game, bots, seed=seed).result
        rank = result.ranks[a_seat]
        ranks[rank] += 1
        if rank == 1:
            sharing = result.ranks.count(1)
            wins += 1 / sharing
    elapsed = time.perf_counter() - started

    low, high = wilson(wins, args.games)
    table = Table(title=f"{args.game}: {args.bot_a.split(':')[-1]} vs {args.bot_b.split(':')[-1]}")
    for column in ("players", "games", "A win rate", "95% interval", "fair share", "A's ranks", "s/game"):
        table.add_column(column)
    table.add_row(
        str(args.players),
        str(args.games),
        f"{wins / args.games:.1%}",
        f"{low:.1%} - {high:.1%}",
        f"{1 / args.players:.1%}",
        " ".join(f"{rank}:{count}" for rank, count in sorted(ranks.items())),
        f"{elapsed / args.games:.3f}",
    )
    Console().print(table)


if __name__ == "__main__":
    main()
