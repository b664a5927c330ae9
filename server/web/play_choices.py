"""A seat's legal actions grouped and labelled for a person (docs/play.md): Kingsburg's dice by
the advisor they would influence, King's Road's plays by the kind of play with the cards named,
Kingdoms' placements by what is placed. Nothing here decides what is legal: every choice is one
entry of the legal action list the referee sent, kept with its index, in the list's order.

Each choice also carries its marks: what it touches, as a board element's data attributes
(``advisor=7``, ``row=1,column=2``, ``region=3``) or a card (``card=KNIGHT``). The page makes the
board's marked elements clickable and narrows the choices to those holding every mark clicked,
so a board click says what it can (a cell, an advisor, a region) and the list says the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kingmaker.games import serial
from kingmaker.games.api import Action
from kingmaker.games.kings_road.values import Card, PlayCards
from kingmaker.games.kingsburg.actions import Influence
from kingmaker.games.kingsburg.data import ADVISOR_NAMES
from kingmaker.server.web.replay import fields_text


@dataclass(frozen=True)
class Choice:
    group: str
    text: str
    marks: tuple[str, ...] = ()
    mark_labels: dict[str, str] = field(default_factory=dict)
    """A label for each mark the page should offer as a button of its own (beside the board)."""


def grouped_choices(game: str, actions: tuple[Action, ...]) -> dict[str, Any]:
    """``groups`` (a label and its choices, each with the index of its legal action), and
    ``marks`` (the marks offered as buttons, with their labels), in the legal list's order."""
    label = _LABELS.get(game, _plain)
    groups: dict[str, list[dict[str, Any]]] = {}
    marks: dict[str, str] = {}
    for index, action in enumerate(actions):
        choice = label(action)
        groups.setdefault(choice.group, []).append(
            {"index": index, "text": choice.text, "marks": list(choice.marks)}
        )
        marks.update(choice.mark_labels)
    return {
        "groups": [{"label": group, "choices": choices} for group, choices in groups.items()],
        "marks": [{"mark": mark, "label": text} for mark, text in marks.items()],
    }


def _plain(action: Action) -> Choice:
    """Any action: grouped by its kind, its fields as the text; a board cell as its mark."""
    data = serial.to_data(action)
    kind = type(action).__name__
    if "rank" in data:  # Kingdoms' castles: a group for each rank
        kind, data = f"{kind} rank {data['rank']}", {k: v for k, v in data.items() if k != "rank"}
    marks = (f"row={data['row']},column={data['column']}",) if {"row", "column"} <= set(data) else ()
    text = fields_text(data)
    return Choice(_words(kind), text or _words(kind), marks)


def _kingsburg(action: Action) -> Choice:
    if not isinstance(action, Influence):
        return _plain(action)
    dice = "+".join(str(d) for d in action.coloured)
    parts = [f"dice {dice}" if dice else "no coloured die"]
    if action.white:
        parts.append("white " + "+".join(str(d) for d in action.white))
    if action.plus_two:
        parts.append("+2 token")
    if action.market:
        parts.append(f"market {action.market:+d}")
    if action.envoy:
        parts.append("King's Envoy")
    group = f"influence {action.advisor} {ADVISOR_NAMES[action.advisor - 1]}"
    return Choice(group, " · ".join(parts), (f"advisor={action.advisor}",))


def _kings_road(action: Action) -> Choice:
    if not isinstance(action, PlayCards):
        return _plain(action)
    cards = action.cards
    names = [_card(card) for card in cards]
    if Card.WITCH in cards:
        group = "the Witch (choose again once the others are revealed)"
    elif cards and cards[-1] is Card.KNIGHT:
        group = "with the Knight (it reinforces the card before it)"
        names[-1] = f"Knight reinforcing {names[-2]}" if len(names) > 1 else "Knight"
    elif Card.DRAGON in cards:
        group = "with the Dragon"
    else:
        group = "region cards"
    marks = tuple(_card_mark(card) for card in cards)
    labels = {_card_mark(card): _card(card) for card in cards}
    return Choice(group, ", ".join(names), marks, labels)


def _card(card: Card) -> str:
    name = _words(card.name).capitalize()
    return f"{card.region} {name}" if card.region is not None else name


def _card_mark(card: Card) -> str:
    """A region card is its region on the board; a special card has no place there."""
    return f"region={card.region}" if card.region is not None else f"card={card.name}"


def _words(name: str) -> str:
    """``PlaceDrawnTile`` as ``place drawn tile``, ``DRAGONS_LAIR`` as ``dragons lair``."""
    if name.isupper() or "_" in name:
        return name.replace("_", " ").lower()
    spaced = "".join(f" {c.lower()}" if c.isupper() else c for c in name).strip()
    return spaced


_LABELS: dict[str, Callable[[Action], Choice]] = {"kingsburg": _kingsburg, "kings_road": _kings_road}
