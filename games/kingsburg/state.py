"""The Kingsburg game state: the year of eight phases as a machine that stops at each decision.

``apply`` takes the acting seats' actions, then ``_advance``-style helpers run every automatic
step (dice, gifts without choice, the King's reward and Envoy, the battle) until the next
decision or the end. The productive-season steps live in ``season.py``; this file holds the
state, the year's frame and the decisions' dispatch.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from typing import Self

from kingmaker.games.api import Action, GameState, Result, RulesError, Seat, ranks_from_keys
from kingmaker.games.kingsburg import season
from kingmaker.games.kingsburg.actions import ChooseGood, LoseGoods, Pass, Recruit, TakeGoods
from kingmaker.games.kingsburg.battle import (
    Outcome,
    apply_fixed_loss,
    apply_fixed_reward,
    combat_value,
    outcome,
)
from kingmaker.games.kingsburg.data import YEARS, Building, EnemyCard, Good, cards_of_year
from kingmaker.games.kingsburg.observation import observe
from kingmaker.games.kingsburg.province import Province, goods_choices
from kingmaker.games.kingsburg.views import Decision, DiceGroup, Observation, Phase
from kingmaker.games.rng import Rng, roll, shuffle


class KingsburgState(GameState):
    def __init__(
        self,
        players: int,
        rng: Rng,
        turn_order: list[int] | None = None,
        enemy_deck: list[int] | None = None,
        start: bool = True,
    ) -> None:
        """A new game. ``turn_order`` and ``enemy_deck`` (one index 0-4 per year into that
        year's cards) are drawn from ``rng`` unless given; ``start=False`` leaves the state
        before year I so that tests can build a position and enter any phase themselves."""
        self._players = players
        self.rng = rng
        if turn_order is None:
            turn_order = list(range(players))
            shuffle(rng, turn_order)
        self.turn_order = turn_order
        if enemy_deck is None:
            enemy_deck = [rng.randrange(len(cards_of_year(year))) for year in range(1, YEARS + 1)]
        self.enemy_deck = enemy_deck
        self.provinces = [Province() for _ in range(players)]
        self.court: list[list[DiceGroup]] = [[] for _ in range(19)]  # index = advisor
        self.year = 1
        self.phase = Phase.KINGS_AID
        self.decision = Decision.NONE
        self.acting: tuple[int, ...] = ()
        self.legal: tuple[Action, ...] = ()
        self.queue: list[int] = []
        """Seats still to decide in the current step, in turn order."""
        self.cursor = 0
        """Influence: index into ``turn_order`` of the seat whose turn it is."""
        self.gift_advisor = 1
        self.gift_group = 0
        self.envoy_holder = -1
        self.king_die = 0
        self.revealed = False
        self.battle_choices: list[tuple[int, Decision, int]] = []
        self.past_enemies: list[EnemyCard] = []
        if start:
            self.begin_year()

    # -- the interface -------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._players

    def to_act(self) -> tuple[Seat, ...]:
        return self.acting

    def legal_actions(self, seat: Seat) -> tuple[Action, ...]:
        return self.legal if seat in self.acting else ()

    def apply(self, actions: Mapping[Seat, Action]) -> None:
        self.check_joint_action(actions)
        if self.decision is Decision.AID_GOOD:
            for seat in sorted(actions):
                choice = actions[seat]
                assert isinstance(choice, ChooseGood)
                self.provinces[seat].gain_good(choice.good)
            season.begin(self, Phase.SPRING)
            return
        (seat,) = self.acting
        action = actions[seat]
        if self.decision in season.DECISIONS:
            season.decide(self, seat, action)
        elif self.decision is Decision.RECRUIT:
            self._recruit(seat, action)
        elif self.decision in (Decision.BATTLE_REWARD, Decision.BATTLE_LOSS):
            self._battle_choice(seat, action)
        else:
            raise RulesError(f"no decision is open ({self.decision.name})")

    def clone(self) -> Self:
        """A faster copy than ``deepcopy`` (search bots clone per simulated move): cards, dice
        groups and actions are frozen, so only the provinces and the lists are copied."""
        other = copy.copy(self)
        other.rng = copy.deepcopy(self.rng)
        other.turn_order = list(self.turn_order)
        other.enemy_deck = list(self.enemy_deck)
        other.provinces = [province.copy() for province in self.provinces]
        other.court = [list(groups) for groups in self.court]
        other.queue = list(self.queue)
        other.battle_choices = list(self.battle_choices)
        other.past_enemies = list(self.past_enemies)
        return other

    def observation(self, seat: Seat) -> Observation:
        return observe(self, seat)

    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def result(self) -> Result:
        if not self.is_over():
            raise RulesError("the game is not over")
        keys: list[tuple[int, ...]] = [(p.vp, p.goods(), len(p.buildings)) for p in self.provinces]
        return Result(scores=tuple(p.vp for p in self.provinces), ranks=ranks_from_keys(keys))

    # -- helpers used by the phase modules ------------------------------------------------

    def ask(self, seat: int, decision: Decision, legal: tuple[Action, ...]) -> None:
        """Stop for ``seat``'s decision."""
        self.decision = decision
        self.acting = (seat,)
        self.legal = legal

    def enemy(self) -> EnemyCard:
        """This year's enemy card (the top of the enemies deck)."""
        return cards_of_year(self.year)[self.enemy_deck[self.year - 1]]

    def least_developed(self) -> list[int]:
        """The seats tied for fewest buildings, then fewest goods."""
        key = [(len(p.buildings), p.goods()) for p in self.provinces]
        return [seat for seat in range(self.players) if key[seat] == min(key)]

    # -- phase 1: the King's aid ------------------------------------------------------------

    def begin_year(self) -> None:
        self.phase = Phase.KINGS_AID
        self.revealed = False
        behind = self.least_developed()
        if len(behind) == 1:
            self.provinces[behind[0]].aid_die = True
            season.begin(self, Phase.SPRING)
            return
        self.decision = Decision.AID_GOOD
        self.acting = tuple(behind)
        self.legal = tuple(ChooseGood(good) for good in Good)

    # -- phases 3 and 5: the King's reward and the King's Envoy ---------------------------

    def kings_reward(self) -> None:
        self.phase = Phase.KINGS_REWARD
        most = max(len(p.buildings) for p in self.provinces)
        for province in self.provinces:
            if len(province.buildings) == most:
                province.vp += 1

    def kings_envoy(self) -> None:
        self.phase = Phase.KINGS_ENVOY
        behind = self.least_developed()  # an unused Envoy returns first and may come back
        self.envoy_holder = behind[0] if len(behind) == 1 else -1

    # -- phase 7: recruitment -----------------------------------------------------------------

    def begin_recruitment(self) -> None:
        self.phase = Phase.RECRUITMENT
        self.queue = list(self.turn_order)
        self._next_recruit()

    def _recruit_price(self, seat: int) -> int:
        return 1 if self.provinces[seat].owns(Building.BARRACKS) else 2

    def _next_recruit(self) -> None:
        while self.queue:
            seat = self.queue[0]
            province = self.provinces[seat]
            price = self._recruit_price(seat)
            if province.goods() >= price:
                held = (province.gold, province.wood, province.stone)
                options = tuple(Recruit(*pick) for pick in goods_choices(price, held))
                self.ask(seat, Decision.RECRUIT, (*options, Pass()))
                return
            self.queue.pop(0)
        self.battle()

    def _recruit(self, seat: int, action: Action) -> None:
        if isinstance(action, Recruit):
            province = self.provinces[seat]
            province.pay(action.gold, action.wood, action.stone)
            province.soldiers += 1
        else:
            self.queue.pop(0)
        self._next_recruit()

    # -- phase 8: the winter battle ----------------------------------------------------------

    def battle(self) -> None:
        self.phase = Phase.WINTER
        self.revealed = True
        enemy = self.enemy()
        self.king_die = roll(self.rng)  # rolled by the first player, for everyone
        for province in self.provinces:
            province.soldiers += self.king_die
        values = [combat_value(p, enemy) for p in self.provinces]
        results = [outcome(p, enemy) for p in self.provinces]
        self.battle_choices = []
        for seat in self.turn_order:
            province = self.provinces[seat]
            if results[seat] is Outcome.WIN:
                apply_fixed_reward(province, enemy)
                if enemy.reward_goods_of_choice:
                    self.battle_choices.append((seat, Decision.BATTLE_REWARD, enemy.reward_goods_of_choice))
            elif results[seat] is Outcome.LOSS:
                apply_fixed_loss(province, enemy)
                if enemy.loss_goods_of_choice >= province.goods():
                    province.pay(province.gold, province.wood, province.stone)
                elif enemy.loss_goods_of_choice:
                    self.battle_choices.append((seat, Decision.BATTLE_LOSS, enemy.loss_goods_of_choice))
        winners = [seat for seat in range(self.players) if results[seat] is Outcome.WIN]
        if winners:
            best = max(values[seat] for seat in winners)
            for seat in winners:
                if values[seat] == best:
                    self.provinces[seat].vp += 1
        self._next_battle_choice()

    def _next_battle_choice(self) -> None:
        if self.battle_choices:
            seat, decision, amount = self.battle_choices[0]
            province = self.provinces[seat]
            if decision is Decision.BATTLE_REWARD:
                legal: tuple[Action, ...] = tuple(TakeGoods(*p) for p in goods_choices(amount))
            else:
                held = (province.gold, province.wood, province.stone)
                legal = tuple(LoseGoods(*pick) for pick in goods_choices(amount, held))
            self.ask(seat, decision, legal)
            return
        self.end_year()

    def _battle_choice(self, seat: int, action: Action) -> None:
        province = self.provinces[seat]
        if isinstance(action, TakeGoods):
            province.gain(action.gold, action.wood, action.stone)
        elif isinstance(action, LoseGoods):
            province.pay(action.gold, action.wood, action.stone)
        self.battle_choices.pop(0)
        self._next_battle_choice()

    def end_year(self) -> None:
        for province in self.provinces:
            province.soldiers = 0
        self.past_enemies.append(self.enemy())
        if self.year == YEARS:
            self._end_game()
            return
        self.year += 1
        self.begin_year()

    def _end_game(self) -> None:
        for province in self.provinces:
            if province.owns(Building.CATHEDRAL):
                province.vp += province.goods() // 2
        self.phase = Phase.GAME_OVER
        self.decision = Decision.NONE
        self.acting = ()
        self.legal = ()


def spectator_view(state: GameState) -> Observation:
    """What a spectator sees: the public board, and this year's enemy once revealed in winter (a
    seat that peeked knows it before; a spectator never does)."""
    assert isinstance(state, KingsburgState)
    view = observe(state, 0)
    return dataclasses.replace(view, seat=-1, enemy=view.enemy if state.revealed else None)
