"""What chance did during one decision, in words, and who saw it.

The replay reads every draw through a recording RNG; what a draw *means* (a tile, dice, a card)
shows in the observations after it, so each game reads its own there. A game without a reader
gets the bare count of draws.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Event = tuple[str, tuple[int, ...] | None]
"""A sentence and the seats that saw it (None: everyone)."""
Views = Sequence[Any]


def describe_chance(
    game: str, before: Views | None, after: Views, moves: Sequence[Any], draws: list[tuple[int, int]]
) -> list[Event]:
    """The chance events between ``before`` (None: the setup) and ``after``."""
    if before is None:
        return _setup(game, after)
    if not draws:
        return []
    reader = _READERS.get(game)
    events = reader(before, after, moves) if reader is not None else []
    return events or [(f"{len(draws)} random draw{'s' if len(draws) != 1 else ''}", None)]


def _setup(game: str, after: Views) -> list[Event]:
    view = after[0]
    if game == "kingdoms":
        events: list[Event] = [(f"seat {view['first_player']} goes first", None)]
        for seat, own in enumerate(after):
            if own["starting_tile"]:
                events.append((f"seat {seat} was dealt {own['starting_tile']['name']}", (seat,)))
        return events
    if game == "kingsburg":
        return [("turn order " + ", ".join(f"seat {s}" for s in view["turn_order"]), None)]
    if game == "kingsville":
        return [(f"seat {view['starting_player']} starts; the decks are shuffled", None)]
    return []


def _kingdoms(before: Views, after: Views, moves: Sequence[Any]) -> list[Event]:
    events: list[Event] = []
    for move in moves:
        tile = after[move.seat]["drawn_tile"]
        if move.data.get("type") == "DrawTile" and tile:
            events.append((f"seat {move.seat} drew {tile['name']} ({tile['value']:+d})", (move.seat,)))
    view, old = after[0], before[0]
    if view["epoch"] != old["epoch"]:
        events.append((f"epoch {view['epoch']}: seat {view['first_player']} goes first", None))
        for seat, own in enumerate(after):
            if own["starting_tile"] and not before[seat]["starting_tile"]:
                events.append((f"seat {seat} was dealt {own['starting_tile']['name']}", (seat,)))
    return events


def _kingsburg(before: Views, after: Views, moves: Sequence[Any]) -> list[Event]:
    events: list[Event] = []
    view, old = after[0], before[0]
    for new, previous in zip(view["provinces"], old["provinces"], strict=True):
        dice = [*new["coloured_dice"], *new["white_dice"]]
        if dice and dice != [*previous["coloured_dice"], *previous["white_dice"]]:
            events.append((f"seat {new['seat']} rolled {' '.join(str(d) for d in dice)}", None))
    if view["king_die"] and (view["king_die"] != old["king_die"] or view["year"] != old["year"]):
        events.append((f"the King's reinforcement die shows {view['king_die']}", None))
    return events


def _kingsville(before: Views, after: Views, moves: Sequence[Any]) -> list[Event]:
    events: list[Event] = []
    for display in ("wonder_display", "order_display"):
        old = [card["name"] for card in before[0][display]]
        for card in after[0][display]:
            if card["name"] in old:
                old.remove(card["name"])
            else:
                kind = "wonder" if display == "wonder_display" else "order"
                events.append((f"{card['name']} ({kind}) was drawn into the display", None))
    return events


_READERS: dict[str, Callable[[Views, Views, Sequence[Any]], list[Event]]] = {
    "kingdoms": _kingdoms,
    "kingsburg": _kingsburg,
    "kingsville": _kingsville,
}
