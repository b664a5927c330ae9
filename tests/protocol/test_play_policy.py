"""`kingmaker play-policy`: a policy trained in the environments, or any OpenSpiel bot, plays
through the real server like any other bot, and sees there the arrays the environment gave it."""

from __future__ import annotations

import numpy as np
import pytest
from protocol_support import PYTHON_RANDOM, end_reasons, kingmaker_command, run_match

from kingmaker.envs.policy_bot import PolicyBot
from kingmaker.envs.table import Table
from kingmaker.games.registry import game_names
from kingmaker.sdk import play_local
from kingmaker.server.background import BackgroundServer

LINEAR = "kingmaker.sample_bots.rl.linear_agent:policy"
ISMCTS = "kingmaker.sample_bots.ismcts_bot:factory"


def play_policy(game: str, policy: str, *flags: str) -> list[str]:
    return [*kingmaker_command(), "play-policy", game, policy, *flags]


@pytest.mark.parametrize("game", game_names())
def test_a_policy_finishes_a_match_through_the_server(server: BackgroundServer, game: str) -> None:
    record = run_match(server, game, [("policy", play_policy(game, LINEAR)), ("random", PYTHON_RANDOM)])
    assert end_reasons(record) == ["FINISHED", "FINISHED"], record.seats[0].detail
    assert record.seats[0].strikes == 0
    sources = {action.source for joint in record.decisions for action in joint.actions if action.seat == 0}
    assert sources == {"bot"}, "every decision of the policy's seat was its own"


def test_an_openspiel_bot_finishes_a_match_through_the_server(server: BackgroundServer) -> None:
    command = play_policy("kingsville", ISMCTS, "--openspiel")
    record = run_match(
        server, "kingsville", [("ismcts", command), ("random", PYTHON_RANDOM)], decision_ms=5000
    )
    assert end_reasons(record) == ["FINISHED", "FINISHED"], record.seats[0].detail
    assert record.seats[0].strikes == 0


def test_a_policy_outside_the_mask_is_refused_by_name() -> None:
    bot = PolicyBot("kingdoms", lambda observation, action_mask: len(action_mask))
    with pytest.raises(ValueError, match="the policy chose slot 174"):
        play_local("kingdoms", [bot, bot])


@pytest.mark.parametrize("game", game_names())
def test_a_bot_request_gives_the_policy_the_environments_arrays(game: str) -> None:
    """Seat 0's arrays in a match equal those the environment shows seat 0 at the same point."""
    seen: list[np.ndarray] = []

    def recording(observation: np.ndarray, action_mask: np.ndarray) -> int:
        seen.append(np.concatenate([observation, action_mask]))
        return int(np.flatnonzero(action_mask)[0])

    match = play_local(game, [PolicyBot(game, recording), PolicyBot(game, recording)], seed=5)
    table = Table(game, 2)
    table.reset(5)
    expected: list[np.ndarray] = []
    for joint in match.log:
        for seat in sorted(joint):
            view = table.observe(seat)
            expected.append(np.concatenate([view["observation"], view["action_mask"]]))
        for seat in sorted(joint):
            table.choose(seat, 0)
    assert len(seen) == len(expected) > 0
    assert all(np.array_equal(mine, theirs) for mine, theirs in zip(seen, expected, strict=True))


def test_bad_references_are_one_line_errors() -> None:
    import subprocess

    run = subprocess.run(
        [*kingmaker_command(), "play-policy", "kingdoms", "nowhere"], capture_output=True, text=True
    )
    assert run.returncode != 0
    assert "expected module:function" in run.stderr
    run = subprocess.run(
        [*kingmaker_command(), "play-policy", "chess", LINEAR],
        capture_output=True,
        text=True,
    )
    assert "unknown game 'chess'" in run.stderr


def test_turn_based_gives_a_sequential_only_bot_a_simultaneous_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenSpiel's ISMCTS takes sequential games only: with ``--turn-based`` the one command
    puts it on King's Road (``envs/turn_based.py``); the bot it connects plays a whole match."""
    import kingmaker.sdk.client
    from kingmaker.sample_bots.random_bot import RandomBot
    from kingmaker.server.cli.play_policy import play_policy as command

    connected = []
    monkeypatch.setattr(kingmaker.sdk.client, "run", lambda bot, *args, **kwargs: connected.append(bot))
    monkeypatch.setenv("KINGMAKER_ISMCTS_GUIDED_SIMULATIONS", "2")
    guided = "kingmaker.sample_bots.ismcts_bot:guided_factory"
    command("kings_road", guided, openspiel=True, turn_based=True, server="-", token="-")
    match = play_local("kings_road", [RandomBot(1), connected[0]], seed=4)
    assert match.result.ranks and len(match.log) > 2


def test_turn_based_without_openspiel_is_refused() -> None:
    import subprocess

    run = subprocess.run(
        [*kingmaker_command(), "play-policy", "kings_road", LINEAR, "--turn-based"],
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0
    assert "--turn-based is for OpenSpiel bots" in run.stderr
