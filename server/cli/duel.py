"""``kingmaker duel A B -g GAME``: is bot A stronger than bot B? Duplicate matches until an SPRT decides.

The duel runs in this process with the SDK's local runner (no server, no processes), so A and
B are Python bots: a built-in name (``random``, ``heuristic``, ``search``, ``search:ITERATIONS``
for the search bot guided by the game's heuristic, ``ismcts:ITERATIONS`` for the plain
tree search with random rollouts) or ``module:Class`` (a ``Bot`` subclass made with no
arguments). Bots that run as separate programs are compared through the server with a
``--duplicate`` league instead.

Every seed is played in all seat orders (A and B in every arrangement over the seats, each
bot on at least one seat); the statistic is *pairwise places*: in each match, for every pair
of a seat of A and a seat of B, A scores 1 for a better place, 1/2 for the same, 0 for a worse;
a seed's score is the mean over its matches and pairs. Seeds are the independent units the
SPRT (``kingmaker.sdk.sprt``) and the confidence interval are computed on.

With ``--jobs N`` seeds are played in N worker processes at once (a search bot uses one core);
their results are still taken in seed order, so the verdict and the lines printed are the same
as with one job, and the workers are stopped as soon as the test decides.
"""

from __future__ import annotations

import importlib
import itertools
import multiprocessing
import random
import time
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass
from typing import Annotated

import typer
from rich.console import Console

from kingmaker.games.api import OptionsError
from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.ladder import bounds
from kingmaker.sdk.bot import Bot
from kingmaker.sdk.local import play_local
from kingmaker.sdk.search import Budget, SearchBot
from kingmaker.sdk.sprt import Sprt, Verdict, confidence, score_to_elo
from kingmaker.server.cli.common import fail

BotFactory = Callable[[int], Bot]
"""Makes a fresh bot for one match from the match's seed."""

HEURISTIC_BOTS = {
    "kingdoms": "kingmaker.sample_bots.kingdoms.greedy_bot:GreedyBot",
    "kings_road": "kingmaker.sample_bots.kings_road.greedy_bot:GreedyBot",
    "kingsburg": "kingmaker.sample_bots.kingsburg.heuristic_bot:HeuristicBot",
    "kingsville": "kingmaker.sample_bots.kingsville.greedy_bot:GreedyBot",
}


def bot_factory(spec: str, game: str) -> BotFactory:
    """The factory a bot spec names; ``ValueError`` with one line when it names none."""
    if spec == "random":
        from kingmaker.sample_bots.random_bot import RandomBot

        return lambda seed: RandomBot(seed)
    if spec == "heuristic":
        spec = HEURISTIC_BOTS[game]
    for kind in ("search", "ismcts"):
        if spec == kind or spec.startswith(f"{kind}:"):
            _, _, count = spec.partition(":")
            if count and (not count.isdigit() or int(count) < 1):
                raise ValueError(f"bad bot {spec!r}: {kind}:N takes a positive number of iterations")
            budget = Budget(iterations=int(count) if count else 100)
            if kind == "ismcts":
                return lambda seed: SearchBot(budget, seed=seed)
            from kingmaker.sample_bots.search_bot import guided_search_bot

            return lambda seed: guided_search_bot(game, budget, seed)
    module_name, colon, class_name = spec.partition(":")
    if not colon or not module_name or not class_name:
        raise ValueError(
            f"unknown bot {spec!r}: use random, heuristic, search, search:N, ismcts:N or module:Class"
        )
    try:
        bot_class = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot load bot {spec!r}: {error}") from None
    if not (isinstance(bot_class, type) and issubclass(bot_class, Bot)):
        raise ValueError(f"{spec!r} is not a Bot subclass")
    return lambda seed: bot_class()


def arrangements(players: int) -> list[tuple[bool, ...]]:
    """Every assignment of A (True) and B (False) to the seats with each on at least one seat."""
    return [
        seats for seats in itertools.product((True, False), repeat=players) if any(seats) and not all(seats)
    ]


def pairwise_score(ranks: tuple[int, ...], is_a: tuple[bool, ...]) -> float:
    """A's mean pairwise score against B in one match (1 better place, 1/2 same, 0 worse)."""
    pairs = [
        1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
        for a in range(len(ranks))
        if is_a[a]
        for b in range(len(ranks))
        if not is_a[b]
    ]
    return sum(pairs) / len(pairs)


def duel(
    bot_a: Annotated[str, typer.Argument(help="random, heuristic, search[:N], ismcts[:N] or module:Class")],
    bot_b: Annotated[str, typer.Argument(help="the bot A is measured against, same forms")],
    game: Annotated[str, typer.Option("--game", "-g", help="the game to play")],
    players: Annotated[
        int, typer.Option("--players", "-p", min=2, max=bounds.PLAYERS.high, help="seats per match")
    ] = 2,
    elo0: Annotated[
        float,
        typer.Option(
            min=bounds.ELO.low, max=bounds.ELO.high, help="H0: A is this much stronger (logistic Elo)"
        ),
    ] = 0.0,
    elo1: Annotated[
        float, typer.Option(min=bounds.ELO.low, max=bounds.ELO.high, help="H1: A is this much stronger")
    ] = 50.0,
    alpha: Annotated[
        float,
        typer.Option(
            min=bounds.ERROR_RATE.low, max=bounds.ERROR_RATE.high, help="chance of accepting H1 when H0 holds"
        ),
    ] = 0.05,
    beta: Annotated[
        float,
        typer.Option(
            min=bounds.ERROR_RATE.low, max=bounds.ERROR_RATE.high, help="chance of accepting H0 when H1 holds"
        ),
    ] = 0.05,
    max_matches: Annotated[
        int,
        typer.Option(
            min=bounds.DUEL_MATCHES.low,
            max=bounds.DUEL_MATCHES.high,
            help="stop undecided after this many matches",
        ),
    ] = 1000,
    seed: Annotated[
        int,
        typer.Option(
            min=0,
            max=bounds.SEED.high - bounds.DUEL_MATCHES.high,
            help="the first seed; seeds count up from it",
        ),
    ] = 1,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=bounds.JOBS.low,
            max=bounds.JOBS.high,
            help="seeds played at once, each in a process",
        ),
    ] = 1,
) -> None:
    """Play A against B in duplicate matches until the SPRT decides or --max-matches runs out."""
    try:
        spec = get_game(game).spec
        test = Sprt(elo0, elo1, alpha, beta)
        bot_factory(bot_a, game), bot_factory(bot_b, game)  # a bad spec fails here, not in a worker
    except (UnknownGameError, ValueError) as error:
        fail(str(error))
    if not spec.min_players <= players <= spec.max_players:
        fail(f"{game} is for {spec.min_players} to {spec.max_players} players, not {players}")
    console = Console(highlight=False)
    orders = arrangements(players)
    console.print(
        f"duel {bot_a} vs {bot_b} in {game}, {players} seats, {len(orders)} seat orders per seed; "
        f"SPRT elo0={elo0:g} elo1={elo1:g} alpha={alpha:g} beta={beta:g} "
        f"(bounds {test.lower:.2f} .. {test.upper:.2f})"
    )
    units: list[float] = []
    matches = 0
    verdict = Verdict.CONTINUE
    seeds = range(seed, seed + max_matches // len(orders))
    try:
        with closing(seed_scores(game, bot_a, bot_b, players, seeds, jobs)) as results:
            for played in results:
                units.append(sum(played.scores) / len(played.scores))
                matches += len(played.scores)
                verdict = test.verdict(units)
                console.print(_line(test, units, matches))
                if verdict is not Verdict.CONTINUE:
                    break
    except OptionsError as error:
        fail(str(error))
    mean, low, high = confidence(units)
    decided = {
        Verdict.H1: f"H1 accepted: {bot_a} is stronger than {bot_b}",
        Verdict.H0: f"H0 accepted: {bot_a} is not {elo1:g} Elo stronger than {bot_b}",
        Verdict.CONTINUE: "undecided: the match count ran out",
    }[verdict]
    console.print(
        f"{decided} after {matches} matches ({len(units)} seeds); score {mean:.3f} "
        f"[95% {low:.3f}, {high:.3f}], Elo {score_to_elo(mean):+.0f} "
        f"[{score_to_elo(low):+.0f}, {score_to_elo(high):+.0f}]"
    )


@dataclass(frozen=True)
class SeedResult:
    """One seed played in every seat order."""

    scores: list[float]
    """A's pairwise score in each match."""
    seconds: list[float]
    """Each match's wall time."""


def play_seed(game: str, spec_a: str, spec_b: str, players: int, match_seed: int) -> SeedResult:
    """One seed in every seat order (the bots made afresh for every match)."""
    factory_a, factory_b = bot_factory(spec_a, game), bot_factory(spec_b, game)
    scores: list[float] = []
    seconds: list[float] = []
    for is_a in arrangements(players):
        bot_seed = random.Random(match_seed * 1009 + len(scores)).randrange(2**31)
        bots = [(factory_a if a else factory_b)(bot_seed + seat) for seat, a in enumerate(is_a)]
        started = time.perf_counter()
        result = play_local(game, bots, seed=match_seed).result
        seconds.append(time.perf_counter() - started)
        scores.append(pairwise_score(result.ranks, is_a))
    return SeedResult(scores, seconds)


def seed_scores(
    game: str, spec_a: str, spec_b: str, players: int, seeds: range, jobs: int = 1
) -> Generator[SeedResult, None, None]:
    """``play_seed`` for each seed, in seed order; with ``jobs`` > 1 in that many processes.

    Closing the iterator early (the test decided) stops the processes and drops seeds in play."""
    if jobs == 1:
        for match_seed in seeds:
            yield play_seed(game, spec_a, spec_b, players, match_seed)
        return
    # Spawned, not forked: a fresh interpreter holds no copy of the parent's threads or locks.
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        tasks = [(game, spec_a, spec_b, players, match_seed) for match_seed in seeds]
        yield from pool.imap(_play_seed_task, tasks)


def _play_seed_task(task: tuple[str, str, str, int, int]) -> SeedResult:
    return play_seed(*task)


def _line(test: Sprt, units: list[float], matches: int) -> str:
    mean, low, high = confidence(units)
    return (
        f"matches {matches:4d}  score {mean:.3f} [{low:.3f}, {high:.3f}]  "
        f"Elo {score_to_elo(mean):+5.0f}  LLR {test.llr(units):+.2f} ({test.lower:.2f}, {test.upper:.2f})"
    )
