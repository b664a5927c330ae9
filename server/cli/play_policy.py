"""``kingmaker play-policy GAME module:function``: a trained policy plays as a bot."""

from __future__ import annotations

import typer

from kingmaker.server.cli.common import BotServerOption, BotTokenOption, fail


def play_policy(
    game: str = typer.Argument(..., help="The game the policy plays (see `kingmaker games`)."),
    policy: str = typer.Argument(
        ...,
        help="module:function or path/to/file.py:function. A policy(observation, action_mask) -> "
        "slot index; with --openspiel a factory(game, player) -> pyspiel.Bot.",
    ),
    openspiel: bool = typer.Option(
        False,
        "--openspiel",
        help="POLICY makes an OpenSpiel bot: factory(pyspiel game, player) -> pyspiel.Bot.",
    ),
    turn_based: bool = typer.Option(
        False,
        "--turn-based",
        help="With --openspiel: give a simultaneous game (King's Road, Kingsburg) to the bot one "
        "seat at a time, for bots that take sequential games only, as OpenSpiel's ISMCTS and MCTS do.",
    ),
    server: str = BotServerOption,
    token: str = BotTokenOption,
) -> None:
    """Connect to the server as a bot that plays GAME with POLICY, a function trained in
    kingmaker.envs (docs/rl.md): policy(observation, action_mask) -> slot, or with --openspiel a
    factory of pyspiel.Bot."""
    from kingmaker.games.registry import UnknownGameError, get_game
    from kingmaker.sdk.client import run

    try:
        get_game(game)
    except UnknownGameError as error:
        fail(str(error))
    if turn_based and not openspiel:
        fail("--turn-based is for OpenSpiel bots (a factory of pyspiel.Bot): add --openspiel")
    try:
        from kingmaker.envs.policy_bot import PolicyBot, SpielBot, load_object

        chosen = load_object(policy)
        bot = SpielBot(game, chosen, turn_based=turn_based) if openspiel else PolicyBot(game, chosen)
    except (ImportError, ValueError) as error:
        fail(str(error))
    if not callable(chosen):
        fail(f"{policy} is not a function")
    run(bot, server, token, games=[game])
