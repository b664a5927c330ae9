"""Information-set Monte Carlo tree search for every game: a bot that thinks with the local engine.

Each iteration the bot *determinizes*: it asks the game (``Game.determinize``) for a state its
observation and legal actions could have come from, with whatever its seat cannot see (other
players' secrets, deck orders, future dice) drawn at random, and nothing read from anywhere but
the request. It then walks one shared tree (Cowling, Powley and Whitehouse's ISMCTS), keyed
by actions, choosing each acting seat's action by UCB1 over that seat's own statistics (so a
simultaneous decision is searched as independent choices, decoupled UCT), adds one node,
plays the game out with a rollout policy and credits every seat on the path with its reward.
Actions unavailable in some determinizations are scored against how often they were
available, not how often the node was visited.

Several trees may be searched on different determinizations and then *vote*: the move with
most root visits summed over the trees is played.

With a *guide* (a heuristic's valuation of the legal actions) the bot does policy improvement
over that heuristic instead of growing a tree: the heuristic's best few moves are played out on
shared determinizations with the heuristic as rollout policy, and the heuristic's choice is
kept unless another move beats it by a margin (``SearchBot._improve``). Random rollouts judge a
move among random players; heuristic rollouts judge it among players like the opponents, which
is what beats a heuristic bot (``sample_bots/search_bot.py`` sets it up for every game).

The budget is iterations (robust to a busy machine; what the benchmarks use) or time: a
fixed number of milliseconds per decision, or by default a share of the request's deadline
plus a little of the time bank.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from kingmaker.games.api import Action, GameState, Observation, Result, Seat
from kingmaker.games.registry import get_game
from kingmaker.sdk.bot import Bot, Reply, Request, resolve_reply

RolloutPolicy = Callable[[GameState, Seat, random.Random], Action]
"""Picks ``seat``'s action in a rollout state (the state is the bot's own determinization)."""

ActionValues = Callable[[Observation, tuple[Action, ...]], Sequence[float]]
"""A heuristic's worth of each legal action, seen from one seat's observation (larger is better)."""

Evaluation = Callable[[GameState], tuple[float, ...]]
"""Each seat's reward in [0, 1] for an unfinished state, where a truncated rollout stops."""

Stage = Callable[[GameState], object]
"""Which stage of the game a state is in (a round, an epoch): a rollout may stop when it changes."""

Determinizer = Callable[[Observation, tuple[Action, ...], int], GameState]


def random_rollout(state: GameState, seat: Seat, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    legal = state.legal_actions(seat)
    return legal[rng.randrange(len(legal))]


def bot_rollout(make: Callable[[], Bot], epsilon: float = 0.1) -> RolloutPolicy:
    """A rollout policy that asks a bot (one per seat, made by ``make``), random with ``epsilon``.

    The bot sees only the rollout seat's observation of the (determinized) state."""
    bots: dict[Seat, Bot] = {}

    def policy(state: GameState, seat: Seat, rng: random.Random) -> Action:
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        if rng.random() < epsilon:
            return legal[rng.randrange(len(legal))]
        bot = bots.get(seat)
        if bot is None:
            bot = bots[seat] = make()
        request = Request("rollout", 0, "", seat, state.observation(seat), legal, 0)
        return resolve_reply(request, bot.act(request))

    return policy


def guided_rollout(values: ActionValues, epsilon: float = 0.05, noise: float = 0.0) -> RolloutPolicy:
    """A rollout policy that plays a heuristic's best action, a random one with ``epsilon``.

    ``values`` is called on the rollout seat's observation of the (determinized) state, so a
    heuristic bot's own valuation serves unchanged; ``noise`` adds up to that much random worth
    to each action (a deterministic heuristic against itself may otherwise mirror forever).
    Calling the valuation directly skips building a request and resolving a reply."""

    def policy(state: GameState, seat: Seat, rng: random.Random) -> Action:
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        if epsilon and rng.random() < epsilon:
            return legal[rng.randrange(len(legal))]
        worth = values(state.observation(seat), legal)
        if noise:
            worth = [value + noise * rng.random() for value in worth]
        return legal[max(range(len(legal)), key=worth.__getitem__)]

    return policy


def rank_reward(result: Result) -> tuple[float, ...]:
    """Each seat's reward in [0, 1]: 1 for first, 0 for last, shared places averaged."""
    players = len(result.ranks)
    if players < 2:
        return (1.0,) * players
    rewards = []
    for rank in result.ranks:
        sharing = result.ranks.count(rank)
        # Places rank .. rank + sharing - 1 split between the seats sharing them.
        mean_place = rank + (sharing - 1) / 2
        rewards.append((players - mean_place) / (players - 1))
    return tuple(rewards)


def margin_reward(result: Result) -> tuple[float, ...]:
    """Half the place (``rank_reward``), half the score margin over the best other seat.

    Against the weak opponents a random rollout plays, nearly every move wins; the margin
    still tells a move that wins by more from one that wins by less. The margin is squashed
    with tanh on a scale of a quarter of the mean absolute score."""
    places = rank_reward(result)
    scores = result.scores
    scale = max(1.0, sum(abs(score) for score in scores) / len(scores) / 4)
    rewards = []
    for seat, score in enumerate(scores):
        best_other = max(other for i, other in enumerate(scores) if i != seat) if len(scores) > 1 else 0
        rewards.append(0.5 * places[seat] + 0.25 * (1 + math.tanh((score - best_other) / scale)))
    return tuple(rewards)


def margin_evaluation(worth: Sequence[float], scale: float) -> tuple[float, ...]:
    """Rewards in [0, 1] from each seat's estimated worth: its lead over the best other seat,
    squashed with tanh on ``scale`` (for ``SearchBot(evaluate=...)`` where rollouts stop early)."""
    rewards = []
    for seat, mine in enumerate(worth):
        best_other = max((other for i, other in enumerate(worth) if i != seat), default=0.0)
        rewards.append(0.5 * (1 + math.tanh((mine - best_other) / scale)))
    return tuple(rewards)


@dataclass(frozen=True)
class Budget:
    """How long to think about one decision: iterations, or milliseconds, or the request's clock."""

    iterations: int | None = None
    """Exactly this many iterations (summed over the trees), whatever the clock says."""
    time_ms: float | None = None
    """This many milliseconds of wall time per decision."""
    deadline_share: float = 0.6
    """Without either: this share of the request's ``deadline_ms`` ..."""
    bank_share: float = 0.05
    """... plus this share of what is left in the time bank."""
    fallback_iterations: int = 200
    """Without either and without a deadline (the local runner's requests): this many."""

    def seconds_for(self, request: Request) -> float | None:
        """Wall seconds to think, or None when an iteration count decides."""
        if self.iterations is not None:
            return None
        if self.time_ms is not None:
            return self.time_ms / 1000
        if request.deadline_ms <= 0:
            return None
        return (request.deadline_ms * self.deadline_share + request.time_bank_ms * self.bank_share) / 1000

    def iterations_for(self) -> int:
        return self.iterations if self.iterations is not None else self.fallback_iterations


@dataclass
class _Edge:
    visits: int = 0
    reward: float = 0.0
    available: int = 0


@dataclass
class _Node:
    children: dict[tuple[Action, ...], _Node] = field(default_factory=dict)
    edges: dict[Seat, dict[Action, _Edge]] = field(default_factory=dict)


class SearchBot(Bot):
    """ISMCTS for any game with ``Game.determinize``; see the module docstring."""

    name = "search"

    def __init__(
        self,
        budget: Budget | None = None,
        *,
        trees: int = 1,
        exploration: float = 0.7,
        rollout: RolloutPolicy = random_rollout,
        reward: Callable[[Result], tuple[float, ...]] = margin_reward,
        seed: int | None = None,
        guide: ActionValues | None = None,
        width: int = 6,
        caution: float = 1.0,
        horizon: int | None = None,
        stage: Stage | None = None,
        evaluate: Evaluation | None = None,
        kind: Callable[[Action], object] | None = None,
        even_rounds: bool = False,
    ) -> None:
        if trees < 1:
            raise ValueError("a search needs at least one tree")
        if width < 2:
            raise ValueError("a guided search compares at least two actions")
        if (horizon is None and stage is None) != (evaluate is None):
            raise ValueError("a rollout horizon or stage needs an evaluation, and an evaluation one of them")
        self.guide = guide
        """With a heuristic's valuation: policy improvement over it (see ``_improve``), not a tree."""
        self.width = width
        """Guided: how many of the heuristic's best actions are candidates at the root."""
        self.kind = kind
        """Guided: the candidates include the heuristic's best action of each ``kind`` (say,
        its type), so a choice between kinds of move is searched even where one kind fills the
        heuristic's top ``width``; the rest are the next best by the heuristic's worth."""
        self.even_rounds = even_rounds
        """Guided: every halving round gets an equal share of the budget (Karnin, Koren and
        Somekh's sequential halving), so a larger budget sharpens every cut, not only the last
        comparison; on the clock, the budget in rollouts is estimated from the first sample's
        pace. Otherwise the cuts come after 2, 4, 8 ... samples."""
        self.caution = caution
        """Guided: leave the heuristic's choice only for a lead of this many standard errors
        (``math.inf``: never, which plays the heuristic with the search's cost)."""
        self.horizon = horizon
        """Stop each rollout after this many joint decisions and ``evaluate`` the state."""
        self.stage = stage
        """Stop each rollout where ``stage`` of the state changes from the decision's (the end of
        a round or an epoch, scored by the engine itself), and ``evaluate`` the state."""
        self.evaluate = evaluate
        self.budget = budget or Budget()
        self.trees = trees
        self.exploration = exploration
        self.rollout = rollout
        self.reward = reward
        self._random = random.Random(seed)
        self.last_iterations = 0
        """Iterations the latest decision ran, for tests and tuning."""

    def act(self, request: Request) -> Reply:
        if len(request.legal_actions) == 1:
            return 0
        determinize = get_game(request.game).determinize
        if determinize is None:
            raise ValueError(f"{request.game} has no determinize hook: it cannot be searched")
        seconds = self.budget.seconds_for(request)
        stop = None if seconds is None else time.monotonic() + seconds
        total = self.budget.iterations_for()
        if self.guide is not None:
            return self._improve(request, self.guide, determinize, stop, total)
        roots = [_Node() for _ in range(self.trees)]
        done = 0
        while True:
            if stop is None:
                if done >= total:
                    break
            elif done > 0 and time.monotonic() >= stop:
                break
            root = roots[done % self.trees]
            seed = self._random.randrange(2**62)
            state = determinize(request.observation, request.legal_actions, seed)
            self._iterate(root, state)
            done += 1
        self.last_iterations = done
        return self._vote(roots, request)

    def _vote(self, roots: list[_Node], request: Request) -> int:
        votes = [0.0] * len(request.legal_actions)
        for root in roots:
            edges = root.edges.get(request.seat, {})
            for index, action in enumerate(request.legal_actions):
                edge = edges.get(action)
                if edge is not None:
                    # Visits decide; mean reward breaks ties between equally visited moves.
                    votes[index] += edge.visits + (edge.reward / edge.visits if edge.visits else 0.0) / 2
        return max(range(len(votes)), key=votes.__getitem__)

    def _iterate(self, root: _Node, state: GameState) -> None:
        rng = self._random
        path: list[tuple[_Node, Mapping[Seat, Action]]] = []
        node = root
        start = self.stage(state) if self.stage is not None else None
        while not state.is_over():
            joint = {seat: self._select(node, state, seat) for seat in state.to_act()}
            path.append((node, joint))
            state.apply(joint)
            key = tuple(joint[seat] for seat in sorted(joint))
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node()
                break
            node = child
        rewards = self.play_out(state, rng, start)
        for visited, chosen in path:
            for seat, action in chosen.items():
                edge = visited.edges[seat][action]
                edge.visits += 1
                edge.reward += rewards[seat]

    def _select(self, node: _Node, state: GameState, seat: Seat) -> Action:
        legal = state.legal_actions(seat)
        edges = node.edges.setdefault(seat, {})
        untried: list[Action] = []
        for action in legal:
            edge = edges.get(action)
            if edge is None:
                edge = edges[action] = _Edge()
            edge.available += 1
            if edge.visits == 0:
                untried.append(action)
        if untried:
            return untried[self._random.randrange(len(untried))]
        c = self.exploration

        def ucb(action: Action) -> float:
            edge = edges[action]
            return edge.reward / edge.visits + c * math.sqrt(math.log(edge.available) / edge.visits)

        return max(legal, key=ucb)

    def play_out(self, state: GameState, rng: random.Random, start: object = None) -> tuple[float, ...]:
        """Every seat's reward after the rollout policy plays ``state`` on: to the end, or to the
        horizon, or until the stage differs from ``start`` (the stage where the decision was)."""
        steps = 0
        while not state.is_over():
            if (self.horizon is not None and steps >= self.horizon) or (
                self.stage is not None and self.stage(state) != start
            ):
                assert self.evaluate is not None
                return self.evaluate(state)
            state.apply({seat: self.rollout(state, seat, rng) for seat in state.to_act()})
            steps += 1
        return self.reward(state.result())

    def _improve(
        self,
        request: Request,
        guide: ActionValues,
        determinize: Determinizer,
        stop: float | None,
        total: int,
    ) -> int:
        """Policy improvement over the heuristic ``guide``: which of its best moves does best?

        The candidates are the ``width`` actions the heuristic values most (with ``kind``, its
        best of each kind among them). Each *sample* is one determinization and one rollout
        seed, played out once after every candidate still in the race (common random numbers:
        the candidates meet the same hidden cards, dice and rollout choices, so their difference
        is measured, not the luck). After 2, 4, 8 ... samples (with ``even_rounds``, once each
        round has had its share of the budget) the worse half of the candidates drops out, so
        the budget goes to the close calls. The heuristic's own choice is kept unless another
        candidate beats it, sample by sample, by ``caution`` standard errors: a small search
        cannot make the heuristic worse by chasing noise. Rollouts are played by
        ``self.rollout`` (normally the same heuristic, see ``guided_rollout``), so this is the
        rollout algorithm of Tesauro and Galperin over information sets, and it reads nothing
        but the request."""
        legal = request.legal_actions
        worth = guide(request.observation, legal)
        ranked = sorted(range(len(legal)), key=lambda index: -worth[index])
        default = ranked[0]
        width = min(self.width, max(2, total // 2)) if stop is None else self.width
        active = self.candidates(legal, ranked, width)
        rewards: dict[int, list[float]] = {index: [] for index in active}
        done = 0
        samples = 0
        rounds = math.ceil(math.log2(len(active))) if len(active) > 1 else 1
        even = self.even_rounds

        def round_share() -> int:
            """Samples per candidate in one round of even halving, with the budget known."""
            return max(1, total // rounds // len(active))

        halve_at = round_share() if even and stop is None else 2
        started = time.monotonic()
        out_of_time = False
        while len(active) > 1 and not out_of_time:
            if stop is None and done + len(active) > total:
                break
            seed = self._random.randrange(2**62)
            for index in active:
                if stop is not None and done > 0 and time.monotonic() >= stop:
                    out_of_time = True
                    break
                state = determinize(request.observation, legal, seed)
                rewards[index].append(self._sample(state, request.seat, legal[index], seed))
                done += 1
            else:
                samples += 1
                if even and stop is not None and samples == 1:
                    # On the clock the budget in rollouts is not known: the first sample's
                    # pace estimates it, and the rounds share that as they would an iteration
                    # budget.
                    now = time.monotonic()
                    total = done + int((stop - now) * done / max(now - started, 1e-9))
                    halve_at = round_share()
                if samples >= halve_at and len(active) > 2:
                    # The heuristic's choice stays in: it is what the others must beat.
                    others = sorted((i for i in active if i != default), key=lambda i: -sum(rewards[i]))
                    active = [default, *others[: (len(active) + 1) // 2 - 1]]
                    halve_at = samples + round_share() if even else halve_at * 2
        self.last_iterations = done
        common = min(len(rewards[index]) for index in active)
        if common == 0:
            return default
        best = max(active, key=lambda index: sum(rewards[index][:common]))
        if best == default:
            return best
        gains = [a - b for a, b in zip(rewards[best][:common], rewards[default][:common], strict=True)]
        mean = sum(gains) / common
        spread = math.sqrt(sum((gain - mean) ** 2 for gain in gains) / max(common - 1, 1) / common)
        # (An infinite caution never leaves the heuristic: inf * 0 is nan and compares false.)
        return best if mean > 0 and mean > self.caution * spread else default

    def candidates(self, legal: tuple[Action, ...], ranked: list[int], width: int) -> list[int]:
        """The indices of the actions to search: the heuristic's best first (``ranked`` is by
        its worth), the best of each ``kind`` next, then the next best, ``width`` in all."""
        if self.kind is None:
            return ranked[:width]
        chosen: list[int] = []
        seen: set[object] = set()
        for index in ranked:
            kind = self.kind(legal[index])
            if kind not in seen:
                seen.add(kind)
                chosen.append(index)
        chosen = chosen[:width]
        chosen += [index for index in ranked if index not in chosen][: width - len(chosen)]
        return chosen

    def _sample(self, state: GameState, seat: Seat, action: Action, seed: int) -> float:
        """``seat``'s reward for playing ``action`` in ``state``, then the rollout policy."""
        rng = random.Random(seed)
        start = self.stage(state) if self.stage is not None else None
        joint = {
            other: action if other == seat else self.rollout(state, other, rng) for other in state.to_act()
        }
        state.apply(joint)
        return self.play_out(state, rng, start)[seat]
