"""Kingsville drawn as SVG: the wonder and order displays with the decks, the people in supply,
and each player's castle: its slots (theatre, person with their order, farm), purse and wonders."""

from __future__ import annotations

from typing import Any

from kingmaker.server.web.boards.svg import Entry, box, colour, document, label, rect, stack

SLOT_W = 96
CARD_W, CARD_H = 128, 38
GAP = 8


def draw(views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...], secrets: dict[str, Any]) -> str:
    view = views[0 if viewer is None else viewer]
    slots = max((len(castle["slots"]) for castle in view["castles"]), default=5)
    width = max(16 + slots * SLOT_W, 140 + 4 * (CARD_W + 4))
    heading = (
        f"age {view['age']}{' (final round)' if view['final_round'] else ''} · "
        f"{view['phase'].replace('_', ' ').lower()} · to act: seat {view['current_player']}"
    )
    parts, y = stack(0, 0, width, [(heading, 13, {})])
    for title, cards, deck in (
        ("wonders", view["wonder_display"], view["wonders_in_deck"]),
        ("orders", view["order_display"], view["orders_in_deck"]),
    ):
        drawn, y = _display(title, cards, deck, y + GAP, width)
        parts.append(drawn)
    supply = " · ".join(f"{entry['person'].title()} {entry['available']}" for entry in view["supply"])
    people, y = stack(0, y + GAP, width, [(f"people in supply: {supply}", 11, {})])
    parts.extend(people)
    y += GAP
    for castle in view["castles"]:
        drawn, y = _castle(castle, y, slots, bots)
        parts.append(drawn)
        y += GAP
    return document(width, y, parts, "Kingsville board")


def _display(title: str, cards: list[dict[str, Any]], deck: int, y: float, width: float) -> tuple[str, float]:
    caption, used = label(0, y + 4, 130, f"{title} ({deck} in deck)", 11, bold=True)
    parts = [caption]
    for index, card in enumerate(cards):
        x = 136 + index * (CARD_W + 4)
        words: list[Entry] = [(card["name"], 10, {"bold": True}), (_card_line(card), 8.5, {"fill": "#555"})]
        texts, _ = stack(x + 5, y + 4, CARD_W - 10, words, gap=2)
        fill = "#f6efe0" if title == "wonders" else "#e3eef7"
        parts.append(
            box(rect(x, y, CARD_W, CARD_H, fill, stroke="#999", rx=4, data_card=card["name"]), texts)
        )
    return "".join(parts), y + max(CARD_H, used + 8)


def _card_line(card: dict[str, Any]) -> str:
    if "cost" in card:
        cost = card["cost"]
        return f"age {card['age']} · costs {cost['gold']} gold, {cost['wood']} wood"
    steps = len(card["steps"])
    return f"age {card['age']} · {steps} step{'s' if steps != 1 else ''}"


def _castle(castle: dict[str, Any], y: float, slots: int, bots: tuple[str, ...]) -> tuple[str, float]:
    seat = castle["seat"]
    name = bots[seat] if seat < len(bots) else ""
    width = 16 + slots * SLOT_W
    # Two scores, said in full: points already won in play, and the final score if it ended now.
    final = castle["score_if_ended_now"]
    scores = f"final score if the game ended now: {final} · points won in play so far: {castle['points']}"
    entries: list[Entry] = [
        (f"seat {seat} {name}", 12, {"bold": True, "fill": colour(seat)}),
        (scores, 11, {"class_": "score", "data_seat": seat, "data_score": final}),
        (f"gold {castle['gold']} · wood {castle['wood']} · turns taken {castle['turns_taken']}", 11, {}),
    ]
    parts, top = stack(8, y + 6, width - 16, entries)
    top += 6
    for slot in castle["slots"]:
        parts.extend(_slot(8 + slot["index"] * SLOT_W, top, slot, seat))
    wonders = ", ".join(wonder["name"] for wonder in castle["wonders"])
    owned, bottom = stack(
        8, top + 92, width - 16, [(f"wonders: {wonders or 'none'}", 10, {"class_": "wonders"})]
    )
    parts.extend(owned)
    height = bottom - y + 6
    frame = rect(0, y, width, height, "#fff", stroke=colour(seat), stroke_width=3, rx=6)
    return box(frame, parts, class_="castle", data_seat=seat), y + height


def _slot(x: float, y: float, slot: dict[str, Any], seat: int) -> list[str]:
    w = SLOT_W - 6
    theatre, _ = label(x + 3, y + 2, w - 6, "theatre" if slot["has_theatre"] else "", 9)
    person = slot["person"]
    texts, _ = stack(
        x + 4, y + 22, w - 8, [((person or "empty").title(), 10, {"fill": "#fff" if person else "#999"})]
    )
    if slot["order"]:
        named = slot["order"]["name"]
        order, _ = stack(x + 4, y + 36, w - 8, [(named, 9, {"fill": "#fff", "data_order": named})])
        texts.extend(order)
    farm, _ = label(x + 3, y + 76, w - 6, "farm" if slot["has_farm"] else "", 9)
    person_frame = rect(x, y + 18, w, 54, colour(seat) if person else "#f2f2f2", rx=3, opacity=0.8,
                        data_slot=slot["index"], data_person=person or "")  # fmt: skip
    return [
        box(rect(x, y, w, 14, "#c9a0dc" if slot["has_theatre"] else "#f2f2f2", rx=2), [theatre]),
        box(person_frame, texts),
        box(rect(x, y + 74, w, 14, "#9ccc65" if slot["has_farm"] else "#f2f2f2", rx=2), [farm]),
    ]
