"""``kingmaker duel A B -g GAME``: is bot A stronger than bot B? Duplicate matches until an SPRT decides.

A and B are either both local Python bots or both registered bots:

- local: a built-in name (``random``, ``heuristic``, ``search``, ``search:ITERATIONS`` for the
  search bot guided by the game's heuristic, ``ismcts:ITERATIONS`` for the plain tree search
  with random rollouts) or ``module:Class`` (a ``Bot`` subclass made with no arguments); the
  duel runs in this process with the SDK's local runner (no server, no processes);
- registered: a bot's name, or ``NAME@VERSION`` (``NAME@`` for a registered bot named like a
  local one); the server plays the duel (the ``Duel`` RPC: its jail, its time control, the bots'
  own processes) and streams each seed's result. An author needs a bot of their own in it.

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
import multiprocessing
import random
import time
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass
from typing import Annotated

import typer

from kingmaker.games.api import OptionsError
from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.ladder import bounds
from kingmaker.sdk.bot import Bot
from kingmaker.sdk.duplicate import arrangements, pairwise_score
from kingmaker.sdk.local import play_local
from kingmaker.sdk.search import Budget, SearchBot
from kingmaker.sdk.sprt import (
    PENTANOMIAL,
    Sprt,
    Tally,
    Verdict,
    confidence,
    elo_estimate,
    score_to_elo,
    verdict_words,
)
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, fail
from kingmaker.server.cli.visible_console import VisibleConsole

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
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Play A against B in duplicate matches until the SPRT decides or --max-matches runs out.

    A and B are local Python bots (played here) or registered bots, NAME or NAME@VERSION (played
    by the server)."""
    if not (is_local(bot_a) and is_local(bot_b)):
        if is_local(bot_a) or is_local(bot_b):
            registered, local = (bot_b, bot_a) if is_local(bot_a) else (bot_a, bot_b)
            fail(
                f"{registered!r} is no local bot (random, heuristic, search[:N], ismcts[:N], module:Class) "
                f"and {local!r} is: a duel is between two local bots or two registered bots (NAME@VERSION)"
            )
        if jobs != 1:
            fail("--jobs is for local bots: the server plays a registered bot's seeds itself")
        _on_server(
            bot_a, bot_b, game, players, (elo0, elo1, alpha, beta), max_matches, seed, server, admin_token
        )
        return
    try:
        spec = get_game(game).spec
        test = Sprt(elo0, elo1, alpha, beta)
        bot_factory(bot_a, game), bot_factory(bot_b, game)  # a bad spec fails here, not in a worker
    except (UnknownGameError, ValueError) as error:
        fail(str(error))
    if not spec.min_players <= players <= spec.max_players:
        fail(f"{game} is for {spec.min_players} to {spec.max_players} players, not {players}")
    console = VisibleConsole(highlight=False)
    orders = arrangements(players)
    console.print(
        f"duel {bot_a} vs {bot_b} in {game}, {players} seats, {len(orders)} seat orders per seed; "
        f"SPRT elo0={elo0:g} elo1={elo1:g} alpha={alpha:g} beta={beta:g} "
        f"(bounds {test.lower:.2f} .. {test.upper:.2f})"
    )
    # Seeds of any seat count score between 0 and 1; the pentanomial's five values stand in,
    # at 1/1000 of a seed each, for those not yet seen (as with two seats, where they are all).
    units = Tally(PENTANOMIAL)
    matches = 0
    verdict = Verdict.CONTINUE
    seeds = range(seed, seed + max_matches // len(orders))
    try:
        with closing(seed_scores(game, bot_a, bot_b, players, seeds, jobs)) as results:
            for played in results:
                units.add(sum(played.scores) / len(played.scores))
                matches += len(played.scores)
                verdict = test.verdict(units)
                console.print(_line(test, units, matches))
                if verdict is not Verdict.CONTINUE:
                    break
    except OptionsError as error:
        fail(str(error))
    mean, low, high = confidence(units)
    diff, half = elo_estimate(units)
    decided = (
        verdict_words(verdict, bot_a, bot_b, elo0, elo1)
        if verdict is not Verdict.CONTINUE
        else "undecided: the match count ran out"
    )
    console.print(
        f"{decided} after {matches} matches ({units.n} seeds); score {mean:.3f} "
        f"[95% {low:.3f}, {high:.3f}], Elo {diff:+.0f} ± {half:.0f} "
        f"[{score_to_elo(low):+.0f}, {score_to_elo(high):+.0f}]"
    )


def is_local(spec: str) -> bool:
    """A spec of a Python bot this process can make (else it names a registered bot)."""
    return "@" not in spec and (spec in ("random", "heuristic", "search", "ismcts") or ":" in spec)


def _on_server(
    bot_a: str,
    bot_b: str,
    game: str,
    players: int,
    test: tuple[float, float, float, float],
    max_matches: int,
    seed: int,
    server: str | None,
    admin_token: str | None,
) -> None:
    from kingmaker.v1 import admin_pb2

    elo0, elo1, alpha, beta = test
    request = admin_pb2.DuelRequest(
        game=game, a=bot_a, b=bot_b, players=players, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta,
        max_matches=max_matches, seed=seed,
    )  # fmt: skip
    console = VisibleConsole(highlight=False)
    console.print(
        f"duel {bot_a} vs {bot_b} in {game} on the server, {players} seats; SPRT elo0={elo0:g} elo1={elo1:g}"
    )
    last = None
    with admin_client(server, admin_token) as client:
        for progress in client.stream("Duel", request):
            last = progress
            if not progress.done:
                console.print(
                    f"matches {progress.matches:4d}  score {progress.score:.3f} "
                    f"[{progress.score_low:.3f}, {progress.score_high:.3f}]  "
                    f"Elo {progress.elo:+5.0f} ± {progress.elo_half_width:<4.0f} LLR {progress.llr:+.2f}"
                )
    if last is None:
        fail("the server ended the duel without a result")
    console.print(
        f"{last.reason} after {last.matches} matches ({last.seeds} seeds); score {last.score:.3f} "
        f"[95% {last.score_low:.3f}, {last.score_high:.3f}], Elo {last.elo:+.0f} ± {last.elo_half_width:.0f}"
    )
    if last.verdict == "continue" and last.reason.startswith("stopped"):
        raise typer.Exit(1)


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


def _line(test: Sprt, units: Tally, matches: int) -> str:
    mean, low, high = confidence(units)
    diff, half = elo_estimate(units)
    return (
        f"matches {matches:4d}  score {mean:.3f} [{low:.3f}, {high:.3f}]  "
        f"Elo {diff:+5.0f} ± {half:<4.0f} LLR {test.llr(units):+.2f}"
    )
