"""A seat's legal actions grouped for a person (``play_choices``): every legal action is offered
exactly once under its own index, Kingsburg's dice are grouped by advisor and King's Road's plays
by kind, and every mark that names a board element is one the seat's drawn board holds."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from kingmaker.games.api import Action, Observation
from kingmaker.games.registry import game_names, get_game
from kingmaker.server.web.play_choices import grouped_choices
from kingmaker.server.web.play_view import seat_view


def decisions(
    game: str, seed: int = 3, players: int = 3
) -> Iterator[tuple[int, tuple[Action, ...], Observation]]:
    """Every (seat, legal actions, observation) of one random match."""
    state, rng = get_game(game).new(players, seed, {}), random.Random(seed)
    while not state.is_over():
        acting = {seat: state.legal_actions(seat) for seat in state.to_act()}
        for seat, actions in acting.items():
            yield seat, actions, state.observation(seat)
        state.apply({seat: rng.choice(actions) for seat, actions in acting.items()})


@pytest.mark.parametrize("game", game_names())
def test_every_legal_action_is_offered_once_under_its_index(game: str) -> None:
    for _, actions, _ in decisions(game):
        groups = grouped_choices(game, actions)["groups"]
        indexes = [choice["index"] for group in groups for choice in group["choices"]]
        assert sorted(indexes) == list(range(len(actions)))
        assert all(group["label"] and all(c["text"] for c in group["choices"]) for group in groups)


def test_kingsburg_dice_are_grouped_by_the_advisor_they_influence() -> None:
    influences = [
        actions for _, actions, _ in decisions("kingsburg") if type(actions[0]).__name__ == "Influence"
    ]
    widest = max(influences, key=len)
    groups = grouped_choices("kingsburg", widest)["groups"]
    assert len(groups) < len(widest)
    for group in groups:
        advisors = {
            widest[c["index"]].advisor for c in group["choices"] if hasattr(widest[c["index"]], "advisor")
        }
        assert len(advisors) <= 1
        if advisors:
            (advisor,) = advisors
            assert group["label"].startswith(f"influence {advisor} ")
            assert all(c["marks"] == [f"advisor={advisor}"] for c in group["choices"])


def test_kings_road_plays_are_a_few_groups_and_a_button_for_each_card_in_hand() -> None:
    _, actions, _ = next(decisions("kings_road"))
    offered = grouped_choices("kings_road", actions)
    assert len(actions) > 100 and len(offered["groups"]) <= 4
    cards = {card for action in actions for card in action.cards}
    assert len(offered["marks"]) == len(cards)
    with_knight = next(g for g in offered["groups"] if "Knight" in g["label"])
    for choice in with_knight["choices"]:
        named = choice["text"].split(", ")
        assert len(named) == len(actions[choice["index"]].cards)
        assert named[-1] == f"Knight reinforcing {named[-2]}"


@pytest.mark.parametrize("game", ["kingsburg", "kings_road", "kingdoms"])
def test_a_mark_of_the_board_names_an_element_the_seats_board_holds(game: str) -> None:
    names = ("p0", "p1", "p2")
    seen = 0
    for seat, actions, observation in decisions(game):
        view = seat_view(game, seat, names, observation, actions)
        for mark in {m for g in view["groups"] for c in g["choices"] for m in c["marks"]}:
            if mark.startswith("card="):
                continue  # a special card has no place on the board: it has its own button
            pattern = r"\s".join(
                rf'[^>]*data-{key}="{value}"' for key, value in (p.split("=") for p in mark.split(","))
            )
            assert re.search(pattern, view["svg"]), (game, mark)
            seen += 1
    assert seen
