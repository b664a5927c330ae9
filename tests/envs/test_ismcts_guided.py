"""The guided ISMCTS (``sample_bots/ismcts_guide.py``) decides from the seat's information state
alone: two worlds that differ only in what the seat cannot see give the same move."""

from __future__ import annotations

import copy
import random
from types import SimpleNamespace

import pytest

from kingmaker.envs.openspiel import load_game, state_from_request
from kingmaker.games.registry import get_game
from kingmaker.sample_bots.ismcts_bot import guided_factory


def _a_decision(name: str, moves: int) -> tuple[object, object, int]:
    """A seat's observation and legal actions some moves into a 2-seat game, and the seat."""
    state = get_game(name).new(2, 5)
    chooser = random.Random(5)
    for _ in range(moves):
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    seat = state.to_act()[0]
    return state.observation(seat), state.legal_actions(seat), seat


def _whole(engine: object) -> dict[str, object]:
    """Everything an engine state holds; of a random generator, what a copy of it draws next."""
    return {
        name: tuple(copy.deepcopy(value).randrange(1 << 30) for _ in range(4))
        if hasattr(value, "randrange")
        else repr(value)
        for name, value in vars(engine).items()
    }


@pytest.mark.parametrize("name", ["kingdoms", "kingsville"])
def test_worlds_alike_to_the_seat_get_the_same_move(name: str) -> None:
    observation, legal, seat = _a_decision(name, 1)
    game = load_game(name, {"players": 2})
    request = SimpleNamespace(observation=observation, legal_actions=legal)
    worlds = [state_from_request(game, request, seed) for seed in (11, 12)]
    assert worlds[0].engine.observation(seat) == worlds[1].engine.observation(seat)
    # The worlds differ in what this seat cannot see (the other's tiles, the order of a deck).
    assert _whole(worlds[0].engine) != _whole(worlds[1].engine)
    moves = [guided_factory(game, seat, simulations=6).step(world) for world in worlds]
    assert moves[0] == moves[1]
    assert 0 <= moves[0] < len(legal)


def test_a_leaf_past_the_searched_epoch_is_judged_where_it_stands() -> None:
    """A Kingdoms rollout stops where the searched decision's epoch is scored. A leaf one move
    deeper that already ended that epoch is judged as it stands, like its siblings at the same
    epoch's end; it used to be rolled out through the whole next epoch, so the tree compared
    gold at two different times (and the guided ISMCTS lost to its own heuristic)."""
    from kingmaker.sample_bots.search_bot import kingdoms_evaluation

    state = get_game("kingdoms").new(2, 5)
    chooser = random.Random(5)
    while True:
        before = state.clone()
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
        if state.epoch != before.epoch:  # (a KingdomsState)
            break
    assert not state.is_over()
    seat = before.to_act()[0]
    game = load_game("kingdoms", {"players": 2})
    request = SimpleNamespace(observation=before.observation(seat), legal_actions=before.legal_actions(seat))
    bot = guided_factory(game, seat, simulations=4)
    bot.run_search(state_from_request(game, request, 3))  # the decision that ends the epoch
    leaf = state.clone()
    judged = bot._evaluator.evaluate(SimpleNamespace(engine=leaf))
    assert judged == [2 * value - 1 for value in kingdoms_evaluation(state)]
    assert [leaf.observation(seat) for seat in (0, 1)] == [state.observation(seat) for seat in (0, 1)]


def test_of_moves_visited_alike_the_prior_led_search_plays_the_priors_favourite() -> None:
    """OpenSpiel draws among the most visited moves; a prior-led search (Kingdoms') plays the
    heuristic's favourite of them, and explores by the prior (PUCT)."""
    from open_spiel.python.algorithms import ismcts

    from kingmaker.sample_bots.ismcts_bot import PRIOR_LED

    node = ismcts.ISMCTSNode()
    node.total_visits = 13
    node.prior_map = {0: 0.2, 1: 0.5, 2: 0.3}
    node.child_info = {
        slot: ismcts.ChildInfo(visits, 0.0, node.prior_map[slot]) for slot, visits in enumerate((5, 5, 3))
    }
    state = SimpleNamespace(legal_actions=lambda: [0, 1, 2, 3])
    game = load_game("kingdoms", {"players": 2})
    assert "kingdoms" in PRIOR_LED and "kingsville" not in PRIOR_LED
    led = guided_factory(game, 0, simulations=4)
    assert led._child_selection_policy == ismcts.ChildSelectionPolicy.PUCT
    assert led.get_final_policy(state, node) == [(0, 0.0), (1, 1.0), (2, 0.0), (3, 0.0)]
    plain = guided_factory(load_game("kingsville", {"players": 2}), 0, simulations=4)
    assert plain._child_selection_policy == ismcts.ChildSelectionPolicy.UCT
    drawn = dict(plain.get_final_policy(state, node))
    assert drawn[0] == drawn[1] == 0.5  # (OpenSpiel's: one of the two, at random)


def test_the_kingdoms_prior_puts_the_best_move_of_each_kind_right_after_the_best() -> None:
    """The tree widens in the prior's order, a few moves at first: as in the search bot's
    candidates, the heuristic's best move comes first and its best of each other kind (castle,
    draw, starting tile) next, so a search asks whether to draw at all where the heuristic's
    top few are all castles."""
    from kingmaker.sample_bots.search_bot import guide_for

    game = load_game("kingdoms", {"players": 2})
    values = guide_for("kingdoms").values
    bot = guided_factory(game, 0, simulations=4)
    state = get_game("kingdoms").new(2, 5)
    chooser = random.Random(7)
    by_value_lacked_a_kind = 0
    while not state.is_over():
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        kinds = {type(action) for action in legal}
        prior = bot._evaluator.prior(SimpleNamespace(current_player=lambda seat=seat: seat, engine=state))
        order = [slot for slot, _ in sorted(prior, key=lambda item: -item[1])]
        worth = values(state.observation(seat), legal)
        assert worth[order[0]] == max(worth)
        assert {type(legal[slot]) for slot in order[: len(kinds)]} == kinds
        by_value = sorted(range(len(legal)), key=worth.__getitem__, reverse=True)
        by_value_lacked_a_kind += {type(legal[slot]) for slot in by_value[: len(kinds)]} != kinds
        state.apply({seat: chooser.choice(legal)})
    assert by_value_lacked_a_kind > 0  # (else this game never shows the difference)


def _a_world(seed: int) -> tuple[object, object, int, int]:
    """A Kingsville game, a world for the seat to choose in, the seat, and its legal moves."""
    observation, legal, seat = _a_decision("kingsville", 1)
    game = load_game("kingsville", {"players": 2})
    request = SimpleNamespace(observation=observation, legal_actions=legal)
    return game, state_from_request(game, request, seed), seat, len(legal)


def test_without_a_time_limit_every_simulation_runs_and_with_one_the_search_stops() -> None:
    game, world, seat, moves = _a_world(11)
    assert moves > 1
    bot = guided_factory(game, seat, simulations=5)
    bot.step(world)
    assert bot.simulations == 5
    game, world, seat, _ = _a_world(11)
    bot = guided_factory(game, seat, simulations=100_000)
    bot.set_time_limit(0.0)  # out of time at once: the two a move needs, and no more
    move = bot.step(world)
    assert bot.simulations == 2
    assert 0 <= move < moves


def _simulations_of_one_request(deadline_ms: int, simulations: int) -> int:
    """A SpielBot of the guided ISMCTS asked once with this clock: how many simulations its
    search ran."""
    from kingmaker.envs.policy_bot import SpielBot
    from kingmaker.sdk.bot import MatchStart, Request

    spiel = SpielBot("kingsville", lambda game, player: guided_factory(game, player, simulations))
    observation, legal, seat = _a_decision("kingsville", 1)
    spiel.on_match_start(MatchStart("m", "kingsville", seat, 2, {}, ("a", "b")))
    spiel.act(Request("m", 1, "kingsville", seat, observation, legal, deadline_ms=deadline_ms))
    return int(spiel._bots["m"][2].simulations)  # (the match's ISMCTS bot)


def test_a_spiel_bot_thinks_within_the_requests_clock() -> None:
    """The server's request carries a deadline: the ISMCTS stops within its share of it (the
    search bot's ``Budget``), however many simulations it was made for; a local match's
    request has none, and every simulation runs."""
    assert 2 <= _simulations_of_one_request(deadline_ms=20, simulations=100_000) < 100_000
    assert _simulations_of_one_request(deadline_ms=0, simulations=7) == 7
