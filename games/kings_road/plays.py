"""Which card plays are legal, and what a revealed play does to the board.

A play is an ordered choice of up to three cards, but most orders mean the same thing, so the
legal actions list each distinct play once (see ``PlayCards``): this keeps a request at no more
than 157 actions instead of the 990 ordered triples, with exactly the same choices.

Decisions where the rulebook is silent:
- A Witch play is the Witch alone: its other two cards return to the hand unrevealed and have
  no effect, so choosing them is no decision.
- The Knight reinforces the card revealed just before it when that is a region card (the
  second card of three, the first of two); after a Dragon, or alone, it adds nothing. It always
  adds its marker when it can: a player who wants no extra marker does not play the Knight.
- With no marker in supply a player plays no cards (its only legal action is the empty play).
"""

from __future__ import annotations

import functools
from itertools import combinations

from kingmaker.games.kings_road.board import Board
from kingmaker.games.kings_road.values import Card, PlayCards


@functools.cache
def legal_plays(hand: frozenset[Card], count: int) -> tuple[PlayCards, ...]:
    """Every distinct play of ``count`` cards from ``hand``, in a stable order."""
    if count == 0:
        return (PlayCards(()),)
    plays: list[PlayCards] = []
    if Card.WITCH in hand:
        plays.append(PlayCards((Card.WITCH,)))
    plain = sorted((card for card in hand if card not in (Card.KNIGHT, Card.WITCH)), key=_order)
    plays.extend(PlayCards(cards) for cards in combinations(plain, count))
    if Card.KNIGHT in hand:
        if count == 1:
            plays.append(PlayCards((Card.KNIGHT,)))
        else:
            for target in plain:
                others = [card for card in plain if card is not target]
                for rest in combinations(others, count - 2):
                    plays.append(PlayCards((*rest, target, Card.KNIGHT)))
    return tuple(plays)


def _order(card: Card) -> int:
    return card.value


def place_markers(board: Board, seat: int, cards: tuple[Card, ...]) -> None:
    """Put down the markers a revealed play places: one per region card, one for the Knight."""
    for position, card in enumerate(cards):
        if card.region is not None:
            board.place(seat, card.region)
        elif card is Card.KNIGHT and position > 0:
            target = cards[position - 1].region
            if target is not None:
                board.place(seat, target)
