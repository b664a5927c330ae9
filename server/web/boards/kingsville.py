"""Kingsville drawn as SVG: the wonder and order displays with the decks, the people in supply,
and each player's castle: its slots (theatre, person with their order, farm), purse and wonders."""

from __future__ import annotations

from typing import Any

from kingmaker.server.web.boards.svg import colour, document, group, rect, text

SLOT_W = 92


def draw(views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...], secrets: dict[str, Any]) -> str:
    view = views[0 if viewer is None else viewer]
    parts = [
        text(
            0,
            14,
            f"age {view['age']}{' (final round)' if view['final_round'] else ''} · "
            f"{view['phase'].replace('_', ' ').lower()} · to act: seat {view['current_player']}",
            13,
        ),
    ]
    parts.append(_display("wonders", view["wonder_display"], view["wonders_in_deck"], 24))
    parts.append(_display("orders", view["order_display"], view["orders_in_deck"], 62))
    supply = " · ".join(f"{entry['person'].title()} {entry['available']}" for entry in view["supply"])
    parts.append(text(0, 112, f"people in supply: {supply}", 11))
    slots = max((len(castle["slots"]) for castle in view["castles"]), default=5)
    width = max(8 + slots * SLOT_W, 760)
    for castle in view["castles"]:
        parts.append(_castle(castle, 124 + castle["seat"] * 132, bots))
    return document(width, 124 + len(view["castles"]) * 132, parts, "Kingsville board")


def _display(label: str, cards: list[dict[str, Any]], deck: int, y: int) -> str:
    parts = [text(0, y + 20, f"{label} ({deck} in deck)", 11, font_weight="bold")]
    for index, card in enumerate(cards):
        x = 130 + index * 126
        parts.append(
            rect(
                x,
                y,
                122,
                32,
                "#f6efe0" if label == "wonders" else "#e3eef7",
                stroke="#999",
                rx=4,
                data_card=card["name"],
            )
        )
        parts.append(text(x + 4, y + 13, card["name"][:22], 10, font_weight="bold"))
        parts.append(text(x + 4, y + 26, _card_line(card)[:26], 8, fill="#555"))
    return group(parts, class_="display", data_display=label)


def _card_line(card: dict[str, Any]) -> str:
    if "cost" in card:
        cost = card["cost"]
        return f"age {card['age']} · costs {cost['gold']}g {cost['wood']}w"
    return f"age {card['age']} · {len(card['steps'])} steps"


def _castle(castle: dict[str, Any], y: int, bots: tuple[str, ...]) -> str:
    seat = castle["seat"]
    name = bots[seat] if seat < len(bots) else ""
    parts = [
        rect(0, y, 8 + len(castle["slots"]) * SLOT_W, 126, "#fff", stroke=colour(seat), stroke_width=3, rx=6),
        text(6, y + 16, f"seat {seat} {name}", 12, font_weight="bold", fill=colour(seat)),
        text(
            200,
            y + 16,
            f"points {castle['points']} · score now {castle['score_if_ended_now']} · gold "
            f"{castle['gold']} · wood {castle['wood']} · turns {castle['turns_taken']}",
            11,
            class_="score",
            data_seat=seat,
            data_score=castle["score_if_ended_now"],
        ),
    ]
    for slot in castle["slots"]:
        x = 6 + slot["index"] * SLOT_W
        parts.append(rect(x, y + 22, SLOT_W - 4, 14, "#c9a0dc" if slot["has_theatre"] else "#f2f2f2", rx=2))
        parts.append(text(x + 3, y + 33, "theatre" if slot["has_theatre"] else "", 9))
        person = slot["person"]
        parts.append(
            rect(
                x,
                y + 38,
                SLOT_W - 4,
                46,
                colour(seat) if person else "#f2f2f2",
                rx=3,
                opacity=0.8,
                data_slot=slot["index"],
                data_person=person or "",
            )
        )
        parts.append(text(x + 3, y + 52, (person or "empty").title(), 10, fill="#fff" if person else "#999"))
        if slot["order"]:
            parts.append(
                text(
                    x + 3,
                    y + 66,
                    slot["order"]["name"][:15],
                    9,
                    fill="#fff",
                    data_order=slot["order"]["name"],
                )
            )
        parts.append(rect(x, y + 86, SLOT_W - 4, 14, "#9ccc65" if slot["has_farm"] else "#f2f2f2", rx=2))
        parts.append(text(x + 3, y + 97, "farm" if slot["has_farm"] else "", 9))
    wonders = ", ".join(wonder["name"] for wonder in castle["wonders"])
    parts.append(text(6, y + 118, f"wonders: {wonders or '-'}", 10, class_="wonders"))
    return group(parts, class_="castle", data_seat=seat)
