"""Does the ladder find the true order? A continuous league per game, rated with the ladder's TrueSkill.

    python bench/ladder_validity.py [--matches 60] [--iterations N] [GAME ...]

Per game, four bots whose order is known by construction: random < heuristic < search(N) <
search(4N), the search bot guided by the heuristic (N per game from
``kingmaker.sample_bots.search_bot.SMALL_BUDGETS`` unless given). Matches are drawn
continuously (3 seats where the game allows, else 2): each match
takes the bots that have played least, seated in a random order, and is rated by
``kingmaker.ladder.ratings.ratings.rate`` exactly as the server rates a finished match. After each
match the standings are sorted by conservative rating (mu - 3 sigma); the table reports the
first match after which that order is the known order and stays so to the end ("never" when it
does not settle within the run), the final conservative ratings, and the order the ladder ended
on with the match from which it held. Matches run in process
with the SDK's local runner, iteration budgets keep the search bots independent of load.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from kingmaker.games.registry import game_names, get_game
from kingmaker.ladder.ratings.ratings import conservative, rate, settings_for
from kingmaker.sample_bots.search_bot import SMALL_BUDGETS
from kingmaker.sdk import play_local
from kingmaker.server.cli.duel import BotFactory, bot_factory


@dataclass(frozen=True)
class LeagueReport:
    game: str
    players: int
    matches: int
    settled_at: int | None
    """The first match after which the standings were the known order until the end."""
    ratings: dict[str, float]
    """Final conservative rating per bot."""
    final_order: list[str]
    """The standings after the last match, weakest first."""
    final_since: int
    """The first match after which the standings were ``final_order`` until the end."""
    seconds: float


def run_league(
    game: str, bots: dict[str, BotFactory], known_order: list[str], matches: int, players: int, seed: int = 1
) -> LeagueReport:
    """Play ``matches`` rated matches among ``bots``; ``known_order`` lists them weakest first."""
    settings = settings_for(game)
    ratings = dict.fromkeys(bots, (settings.mu, settings.sigma))
    played = dict.fromkeys(bots, 0)
    chooser = random.Random(seed)
    settled_at: int | None = None
    final_since = 1
    previous: list[str] = []
    started = time.perf_counter()
    for match in range(1, matches + 1):
        names = sorted(bots, key=lambda name: (played[name], chooser.random()))[:players]
        chooser.shuffle(names)
        seats = [bots[name](chooser.randrange(2**31)) for name in names]
        result = play_local(game, seats, seed=seed * 100_003 + match).result
        new = rate(game, [ratings[name] for name in names], result.ranks)
        for name, rating in zip(names, new, strict=True):
            ratings[name] = rating
            played[name] += 1
        standings = sorted(bots, key=lambda name: conservative(*ratings[name]))
        settled_at = (settled_at or match) if standings == known_order else None
        if standings != previous:
            final_since, previous = match, standings
    return LeagueReport(
        game,
        players,
        matches,
        settled_at,
        {name: conservative(*ratings[name]) for name in bots},
        previous,
        final_since,
        time.perf_counter() - started,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("games", nargs="*", default=game_names())
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--iterations", type=int, help="search(1x) in every game (default: per game)")
    args = parser.parse_args()
    table = Table(title=f"ladder validity: continuous league, {args.matches} matches per game")
    names = ("random", "heuristic", "search(1x)", "search(4x)")
    columns = ("game", "seats", "matches", "known order from", *names, "final order (weakest first)", "since")
    for column in (*columns, "s/match"):
        table.add_column(column)
    console = Console()
    for game in args.games:
        n = args.iterations or SMALL_BUDGETS[game]
        order = ["random", "heuristic", f"search:{n}", f"search:{4 * n}"]
        players = min(3, get_game(game).spec.max_players)
        report = run_league(
            game, {name: bot_factory(name, game) for name in order}, order, args.matches, players
        )
        row = (
            game,
            str(players),
            str(report.matches),
            str(report.settled_at or "never"),
            *(f"{report.ratings[name]:.1f}" for name in order),
            " < ".join(report.final_order),
            str(report.final_since),
            f"{report.seconds / report.matches:.1f}",
        )
        table.add_row(*row)
        console.print(" | ".join(row))
    console.print(table)


if __name__ == "__main__":
    main()
