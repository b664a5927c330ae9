"""King's Road drawn as SVG: the eight regions on a ring with their roads, banners, markers and
nobles, the King, and each player's score, supply and hand (a seat's view shows its own hand)."""

from __future__ import annotations

import math
from typing import Any

from kingmaker.games.kings_road.data import REGIONS
from kingmaker.server.web.boards.svg import circle, colour, document, group, rect, text

CENTRE, RADIUS = 230, 170


def _position(number: int) -> tuple[float, float]:
    angle = 2 * math.pi * (number - 1) / len(REGIONS) - math.pi / 2
    return CENTRE + RADIUS * math.cos(angle), CENTRE + RADIUS * math.sin(angle)


def draw(views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...], secrets: dict[str, Any]) -> str:
    view = views[0 if viewer is None else viewer]
    parts = []
    for facts in REGIONS.values():
        x, y = _position(facts.number)
        for other in facts.roads:
            if other > facts.number:
                ox, oy = _position(other)
                parts.append(
                    f'<line x1="{x:.0f}" y1="{y:.0f}" x2="{ox:.0f}" y2="{oy:.0f}" stroke="#c8b98a" '
                    'stroke-width="4"/>'
                )
    for region in view["regions"]:
        parts.append(_region(region, view["king_region"]))
    parts.append(text(CENTRE, CENTRE - 8, f"round {view['round']}", 14, text_anchor="middle"))
    parts.append(text(CENTRE, CENTRE + 12, view["phase"].replace("_", " ").lower(), 11, text_anchor="middle"))
    x0 = 2 * CENTRE + 20
    for player in view["standings"]:
        parts.append(_player(x0, player, views, viewer, bots))
    last = "; ".join(
        f"seat {reveal['seat']}: {', '.join(_card(card) for card in reveal['cards']) or '-'}"
        for reveal in view["last_revealed"]
    )
    parts.append(text(0, 2 * CENTRE + 16, f"last round revealed: {last or '-'}", 11))
    scored = ", ".join(REGIONS[n].name for n in view["last_scored"])
    parts.append(text(0, 2 * CENTRE + 32, f"last scored: {scored or '-'}", 11))
    return document(x0 + 280, 2 * CENTRE + 40, parts, "King's Road board")


def _region(region: dict[str, Any], king: int) -> str:
    x, y = _position(region["number"])
    parts = [
        circle(x, y, 52, "#f3ecd2", stroke="#8c7a4b", stroke_width=3 if region["number"] == king else 1),
        text(x, y - 30, f"{region['number']} {region['name']}", 10, text_anchor="middle", font_weight="bold"),
        text(x, y - 18, "banner " + "-".join(str(v) for v in region["values"]), 9, text_anchor="middle"),
    ]
    for seat, count in enumerate(region["markers"]):
        bx = x - 40 + seat * 17
        parts.append(rect(bx, y - 8, 15, 20, colour(seat), rx=2, data_seat=seat, data_markers=count))
        parts.append(text(bx + 7.5, y + 6, count, 10, text_anchor="middle", fill="#fff"))
    nobles = region["nobles"]
    if nobles:
        parts.append(
            text(x, y + 28, "noble: " + ", ".join(f"seat {s}" for s in nobles), 9, text_anchor="middle")
        )
    if region["number"] == king:
        parts.append(text(x, y + 42, "♔ King", 12, text_anchor="middle", font_weight="bold"))
    markers = " ".join(str(m) for m in region["markers"])
    return group(parts, class_="region", data_region=region["number"], data_markers=markers)


def _player(
    x0: float, player: dict[str, Any], views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...]
) -> str:
    seat = player["seat"]
    y = 10 + seat * 78
    name = bots[seat] if seat < len(bots) else ""
    specials = [
        card for card, held in (("Dragon", player["has_dragon"]), ("Witch", player["has_witch"])) if held
    ]
    if viewer is None or viewer == seat:
        hand = ", ".join(_card(card) for card in views[seat]["hand"])
    else:
        hand = "hand: not this seat's to see" if not specials else "holds " + ", ".join(specials)
    parts = [
        rect(x0, y, 270, 72, "#fff", stroke=colour(seat), stroke_width=3, rx=6),
        text(x0 + 8, y + 18, f"seat {seat} {name}", 13, font_weight="bold", fill=colour(seat)),
        text(
            x0 + 8,
            y + 36,
            f"score {player['score']} · supply {player['supply']} · nobles {player['nobles']}",
            12,
            class_="score",
            data_seat=seat,
            data_score=player["score"],
        ),
        text(x0 + 8, y + 54, hand[:60], 10, fill="#555"),
        text(x0 + 8, y + 66, hand[60:120], 10, fill="#555"),
    ]
    return group(parts, class_="player", data_seat=seat)


def _card(name: str) -> str:
    return name.replace("_", " ").title()
