"""``kingmaker demo``: the main job in one command, through a real server on loopback.

Starts a server on the embedded database (SQLite in a fresh folder), registers the sample bots
as managed bots, runs a small round-robin league of every game with a live progress bar, and
prints each game's standings.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import grpc
import typer

from kingmaker.games.registry import all_games
from kingmaker.ladder import bounds
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli.common import AdminClient, console
from kingmaker.server.cli.ladder import print_standings
from kingmaker.server.cli.leagues import run_with_progress
from kingmaker.v1 import admin_pb2

# The stronger sample bot of each game (module under kingmaker.sample_bots).
STRONGER = {
    "kingdoms": "kingdoms.greedy_bot",
    "kingsburg": "kingsburg.heuristic_bot",
    "kings_road": "kings_road.greedy_bot",
    "kingsville": "kingsville.greedy_bot",
}


def sample_bot(module: str, seed: int | None = None) -> list[str]:
    """The command that runs a sample bot module with this interpreter (its chance drawn from
    ``seed`` and each position, when given: see sample_bots/seeding.py)."""
    command = [sys.executable, "-m", f"kingmaker.sample_bots.{module}"]
    return command if seed is None else [*command, "--seed", str(seed)]


def demo(
    home: Path | None = typer.Option(
        None, help="Keep the server's database here (default: a fresh temporary folder)."
    ),
    seed: int = typer.Option(1, min=0, max=bounds.SEED.high, help="Seed of every league."),
    rounds: int = typer.Option(
        2,
        min=bounds.ROUNDS.low,
        max=bounds.ROUNDS.high,
        help="How many times each league's round robin is played.",
    ),
) -> None:
    """Start a server, register the sample bots, run a small league of every game, print the standings.

    The same --seed on a fresh home gives the same standings each time: the bots' chance comes
    from the seed and the position, and each league plays one match at a time (ratings depend
    on the order matches end). Run again with the same --home, it adds new leagues to the
    ladder already there."""
    with tempfile.TemporaryDirectory(prefix="kingmaker-demo-") as scratch:
        folder = home or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        # The sample bots are this project's own code: trusted, so they may run unjailed where
        # the machine has no jail (a server for other people's bots refuses that by default).
        config = ServerConfig(
            address="127.0.0.1:0",
            database_url=f"sqlite:///{folder / 'kingmaker.db'}",
            admin_token="demo",
            allow_unjailed=True,
        )
        server = BackgroundServer(config)
        try:
            where = folder / "kingmaker.db"
            kept = "" if home else " (temporary: removed when the demo ends; keep it with --home DIR)"
            console.print(f"server on {server.address}, database {where}{kept}", soft_wrap=True)
            console.print(
                f"sample bots (trusted code): {server.server.confinement}", markup=False, soft_wrap=True
            )
            with grpc.insecure_channel(server.address) as channel:
                _play_leagues(AdminClient(channel, server.admin_token, server.address), seed, rounds)
        finally:
            server.stop()


def _play_leagues(client: AdminClient, seed: int, rounds: int) -> None:
    games = [game.spec.name for game in all_games()]
    known = {bot.name for bot in client.call("ListBots", admin_pb2.ListBotsRequest()).bots}
    leagues = {league.name for league in client.call("ListLeagues", admin_pb2.ListLeaguesRequest()).leagues}
    for index, name in enumerate(("random-1", "random-2")):
        _register(client, known, name, games, sample_bot("random_bot", seed * 2 + index))
    for game in games:
        stronger = f"{game.replace('_', '-')}-{STRONGER[game].split('.')[-1].removesuffix('_bot')}"
        _register(client, known, stronger, [game], sample_bot(STRONGER[game], seed))
        name = _fresh(f"{game}-demo", leagues)
        league = admin_pb2.CreateLeagueRequest(
            name=name, game=game, format="round_robin", bots=[stronger, "random-1", "random-2"],
            rounds=rounds, seed=seed,
        )  # fmt: skip
        client.call("CreateLeague", league)
        # One match at a time: ratings depend on the order matches end, so this keeps them the
        # same from run to run. Sample bots: no faults to report.
        run_with_progress(client, league.name, concurrency=1)
        print_standings(client.call("GetStandings", admin_pb2.GetStandingsRequest(game=game)))


def _register(client: AdminClient, known: set[str], name: str, games: list[str], command: list[str]) -> None:
    """Register a sample bot, or (on a home used before) give it this run's command."""
    if name in known:
        edit = admin_pb2.EditBotRequest(name=name, games=games, command=admin_pb2.BotCommand(argv=command))
        client.call("EditBot", edit)
    else:
        client.call("AddBot", admin_pb2.AddBotRequest(name=name, games=games, command=command))


def _fresh(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... if a previous run on this home used it."""
    number = 1
    candidate = name
    while candidate in taken:
        number += 1
        candidate = f"{name}-{number}"
    return candidate
