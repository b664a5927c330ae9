"""The search bot: it plays legal moves in every game, and it sees only what its request holds."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from kingmaker.games.api import GameState, Seat
from kingmaker.games.registry import game_names, get_game
from kingmaker.sample_bots.search_bot import guided_search_bot
from kingmaker.sdk import Request, play_local
from kingmaker.sdk.duplicate import pairwise_score
from kingmaker.sdk.search import Budget, SearchBot, guided_rollout
from kingmaker.server.cli.duel import bot_factory


def _positions(game_name: str, players: int, seed: int, every: int) -> list[tuple[GameState, Seat]]:
    """Positions of a random game where one seat must choose among several actions."""
    state = get_game(game_name).new(players, seed)
    rng = random.Random(seed)
    found = []
    step = 0
    while not state.is_over():
        for seat in state.to_act():
            if len(state.legal_actions(seat)) > 1 and step % every == 0:
                found.append((state.clone(), seat))
        step += 1
        state.apply({seat: rng.choice(state.legal_actions(seat)) for seat in state.to_act()})
    return found


@pytest.mark.parametrize("game_name", game_names())
def test_determinize_reproduces_the_observation(game_name: str) -> None:
    game = get_game(game_name)
    assert game.determinize is not None
    for state, seat in _positions(game_name, 3, 7, 5):
        observation, legal = state.observation(seat), state.legal_actions(seat)
        for seed in range(3):
            made = game.determinize(observation, legal, seed)
            assert made.observation(seat) == observation
            assert made.legal_actions(seat) == legal
            assert made.to_act() == state.to_act()


@pytest.mark.parametrize("game_name", game_names())
def test_a_determinized_state_clones_like_a_dealt_one(game_name: str) -> None:
    """A clone of a determinized state plays on exactly as the state itself: OpenSpiel's ISMCTS
    clones the worlds it samples (a Kingsville world lost its dealt decks at the first clone)."""
    game = get_game(game_name)
    assert game.determinize is not None
    for state, seat in _positions(game_name, 2, 3, 7):
        made = game.determinize(state.observation(seat), state.legal_actions(seat), 5)
        twin, rng = made.clone(), random.Random(5)
        while not made.is_over():
            joint = {acting: rng.choice(made.legal_actions(acting)) for acting in made.to_act()}
            made.apply(joint)
            twin.apply(joint)
            assert [twin.observation(s) for s in range(2)] == [made.observation(s) for s in range(2)]
        assert twin.result() == made.result()


def _plain(game_name: str) -> SearchBot:
    return SearchBot(Budget(iterations=30), seed=5)


def _guided(game_name: str) -> SearchBot:
    return guided_search_bot(game_name, Budget(iterations=12), seed=5)


@pytest.mark.parametrize("make", [_plain, _guided], ids=["ismcts", "guided"])
@pytest.mark.parametrize("game_name", ["kingdoms", "kingsburg"])
def test_search_never_reads_hidden_state(game_name: str, make: Callable[[str], SearchBot]) -> None:
    """Two true states that differ only in what the seat cannot see give one and the same search."""
    game = get_game(game_name)
    assert game.perturb_secrets is not None
    checked = 0
    for state, seat in _positions(game_name, 2, 3, 9)[:6]:
        other = game.perturb_secrets(state, None, 11)
        for opponent in range(state.players):
            if opponent != seat:
                other = game.perturb_secrets(other, opponent, 12)
        assert other.observation(seat) == state.observation(seat)
        decisions = []
        for truth in (state, other):
            request = Request("m", 1, game_name, seat, truth.observation(seat), truth.legal_actions(seat), 0)
            bot = make(game_name)
            decisions.append(bot.act(request))
            # The same determinizations, drawn from the request alone.
            determinize = game.determinize
            assert determinize is not None
            made = determinize(request.observation, request.legal_actions, 99)
            decisions.append(made.observation(1 - seat))
        assert decisions[0] == decisions[2]
        assert decisions[1] == decisions[3]
        checked += 1
    assert checked


@pytest.mark.parametrize("game_name", game_names())
def test_search_bot_finishes_a_game(game_name: str) -> None:
    from kingmaker.sample_bots.random_bot import RandomBot

    bot = SearchBot(Budget(iterations=4), seed=1)
    match = play_local(game_name, [bot, RandomBot(2)], seed=3)
    assert match.result.ranks
    assert bot.last_iterations in (0, 4)


def test_time_budget_comes_from_the_request() -> None:
    request = Request("m", 1, "kingdoms", 0, None, (), deadline_ms=1000, time_bank_ms=2000)
    assert Budget().seconds_for(request) == pytest.approx(0.6 + 0.1)
    assert Budget(iterations=5).seconds_for(request) is None
    assert Budget(time_ms=50).seconds_for(request) == pytest.approx(0.05)
    no_clock = Request("m", 1, "kingdoms", 0, None, (), deadline_ms=0)
    assert Budget().seconds_for(no_clock) is None


def test_search_bot_keeps_to_a_time_budget() -> None:
    state = get_game("kingdoms").new(2, 1)
    seat = state.to_act()[0]
    request = Request("m", 1, "kingdoms", seat, state.observation(seat), state.legal_actions(seat), 100)
    bot = SearchBot(seed=1)
    bot.act(request)
    assert bot.last_iterations >= 1


@pytest.mark.parametrize("game_name", game_names())
def test_guided_search_bot_finishes_a_game_within_its_iterations(game_name: str) -> None:
    from kingmaker.sample_bots.random_bot import RandomBot

    bot = guided_search_bot(game_name, Budget(iterations=6), seed=1)
    match = play_local(game_name, [RandomBot(2), bot], seed=4)
    assert match.result.ranks
    assert bot.last_iterations <= 6


def test_an_unproven_change_keeps_the_guides_choice() -> None:
    """With an infinite caution, the search plays what the heuristic would."""
    from kingmaker.sample_bots.kingsville.greedy_bot import GreedyBot

    greedy = GreedyBot()
    bot = SearchBot(
        Budget(iterations=40),
        seed=3,
        guide=greedy.values,
        rollout=guided_rollout(greedy.values),
        caution=math.inf,
    )
    checked = 0
    for state, seat in _positions("kingsville", 2, 5, 3)[:8]:
        request = Request("m", 1, "kingsville", seat, state.observation(seat), state.legal_actions(seat), 0)
        assert bot.act(request) == greedy.act(request)
        checked += 1
    assert checked


def test_the_search_improves_on_a_bad_guide() -> None:
    """Guided by the greedy valuation turned upside down, rollouts by the greedy bot still find
    better moves than the guide's choice: the search judges moves by playing them out."""
    from kingmaker.sample_bots.kingsville.greedy_bot import GreedyBot

    greedy = GreedyBot()

    def upside_down(observation: object, legal: tuple[object, ...]) -> Sequence[float]:
        return [-value for value in greedy.values(observation, legal)]

    bot = SearchBot(
        Budget(iterations=80), seed=3, guide=upside_down, rollout=guided_rollout(greedy.values), width=8
    )
    changed = 0
    for state, seat in _positions("kingsville", 2, 5, 2)[:10]:
        request = Request("m", 1, "kingsville", seat, state.observation(seat), state.legal_actions(seat), 0)
        worst = max(
            range(len(request.legal_actions)),
            key=upside_down(request.observation, request.legal_actions).__getitem__,
        )
        changed += bot.act(request) != worst
    assert changed >= 5


def test_search_beats_the_heuristic_in_kingsville() -> None:
    """Seat-swapped matches on fixed seeds: a deterministic check, not a statistical claim."""
    search, heuristic = bot_factory("search:16", "kingsville"), bot_factory("heuristic", "kingsville")
    score = 0.0
    for seed in (1, 2):
        for search_first in (True, False):
            is_search = (search_first, not search_first)
            bots = [search(seed) if mine else heuristic(seed) for mine in is_search]
            score += pairwise_score(play_local("kingsville", bots, seed=seed).result.ranks, is_search)
    assert score >= 3


def test_duel_names_the_guided_and_the_plain_search() -> None:
    guided, plain = bot_factory("search:5", "kingsburg")(1), bot_factory("ismcts:5", "kingsburg")(1)
    assert isinstance(guided, SearchBot) and guided.guide is not None
    assert isinstance(plain, SearchBot) and plain.guide is None
    assert guided.budget.iterations == plain.budget.iterations == 5


def test_guided_search_keeps_to_a_time_budget() -> None:
    """On the clock it stops between rollouts, with at least one done, and answers a legal index."""
    state, seat = _positions("kingsburg", 2, 6, 4)[3]
    request = Request("m", 1, "kingsburg", seat, state.observation(seat), state.legal_actions(seat), 100)
    bot = guided_search_bot("kingsburg", Budget(time_ms=1), seed=2)
    assert 0 <= bot.act(request) < len(request.legal_actions)
    assert bot.last_iterations >= 1


def test_kingdoms_rollouts_stop_where_the_engine_has_scored_the_epoch() -> None:
    """Every rollout of the Kingdoms search is judged once its epoch is scored: not before (at
    a horizon, by an estimate), and not after (the next epoch played out too)."""
    from kingmaker.sample_bots.search_bot import kingdoms_epoch, kingdoms_evaluation

    judged: list[int] = []

    def evaluate(state: GameState) -> tuple[float, ...]:
        judged.append(kingdoms_epoch(state))
        return kingdoms_evaluation(state)

    checked = 0
    for state, seat in _positions("kingdoms", 2, 4, 7):
        epoch = kingdoms_epoch(state)
        if epoch == 3:
            continue  # the last epoch's rollouts play to the end of the game
        request = Request("m", 1, "kingdoms", seat, state.observation(seat), state.legal_actions(seat), 0)
        bot = guided_search_bot("kingdoms", Budget(iterations=8), seed=1)
        bot.evaluate = evaluate
        judged.clear()
        bot.act(request)
        assert judged and set(judged) == {epoch + 1}
        checked += 1
    assert checked >= 4


def _counting_bot(
    kind: Callable[[object], object] | None = None, even_rounds: bool = False
) -> tuple[SearchBot, Counter[int]]:
    """A guided search over Kingdoms that counts each candidate's rollouts (by the action
    object's identity: the request's legal actions are distinct objects)."""
    from kingmaker.sample_bots.kingdoms.greedy_bot import GreedyBot

    greedy = GreedyBot()
    bot = SearchBot(
        Budget(iterations=32),
        seed=1,
        guide=greedy.values,
        rollout=guided_rollout(greedy.values),
        width=4,
        kind=kind,
        even_rounds=even_rounds,
    )
    counts: Counter[int] = Counter()
    sample = bot._sample

    def counted(state: GameState, seat: Seat, action: object, seed: int) -> float:
        counts[id(action)] += 1
        return sample(state, seat, action, seed)

    bot._sample = counted  # type: ignore[method-assign]
    return bot, counts


def _kingdoms_choice_between_kinds() -> Request:
    """A Kingdoms decision where castles fill the greedy bot's best four and a draw is legal."""
    from kingmaker.games.kingdoms import DrawTile, PlaceCastle
    from kingmaker.sample_bots.kingdoms.greedy_bot import GreedyBot

    greedy = GreedyBot()
    for state, seat in _positions("kingdoms", 2, 3, 1):
        observation, legal = state.observation(seat), state.legal_actions(seat)
        worth = greedy.values(observation, legal)
        best = sorted(range(len(legal)), key=lambda i: -worth[i])[:4]
        if any(isinstance(a, DrawTile) for a in legal) and all(
            isinstance(legal[i], PlaceCastle) for i in best
        ):
            return Request("m", 1, "kingdoms", seat, observation, legal, 0)
    raise AssertionError("no such position in the game")


def test_candidates_include_the_best_move_of_each_kind() -> None:
    """With ``kind``, castles that fill the heuristic's top four make room for its best draw:
    castle or draw is the choice searched, the heuristic's own choice first."""
    from kingmaker.games.kingdoms import DrawTile

    request = _kingdoms_choice_between_kinds()
    bot, counts = _counting_bot(kind=type)
    bot.act(request)
    sampled = [a for a in request.legal_actions if id(a) in counts]
    assert any(isinstance(a, DrawTile) for a in sampled)
    plain, plain_counts = _counting_bot()
    plain.act(request)
    assert not any(isinstance(a, DrawTile) for a in request.legal_actions if id(a) in plain_counts)


@pytest.mark.parametrize(("even_rounds", "dropped", "kept"), [(False, 2, 14), (True, 4, 12)])
def test_halving_rounds_share_the_budget_evenly_when_asked(
    even_rounds: bool, dropped: int, kept: int
) -> None:
    """32 rollouts over 4 candidates: cut to 2 after 2 samples each (then 14 for the two left),
    or, with even rounds, after 4 (16 rollouts, half the budget), then 12 each."""
    request = _kingdoms_choice_between_kinds()
    bot, counts = _counting_bot(even_rounds=even_rounds)
    bot.act(request)
    assert sorted(counts.values()) == [dropped, dropped, kept, kept]
    assert bot.last_iterations == 32


class _TickingClock:
    """``time`` for the search module with a ``monotonic`` that moves 1 ms per reading: a
    rollout costs one reading, so a time budget of N ms is about N rollouts on any machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 0.001
        return self.now


def test_even_rounds_on_the_clock_estimate_the_budget_from_the_first_samples_pace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """About 40 rollouts' worth of time: the first cut comes once half of it is spent (not
    after 2 samples), and the two candidates left share the rest."""
    import kingmaker.sdk.search as search_module

    monkeypatch.setattr(search_module, "time", _TickingClock())
    request = _kingdoms_choice_between_kinds()
    bot, counts = _counting_bot(even_rounds=True)
    bot.budget = Budget(time_ms=40)
    bot.act(request)
    dropped, _, kept, _ = sorted(counts.values())
    assert dropped >= 4
    assert kept >= dropped + 4
