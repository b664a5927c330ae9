"""King's Road drawn as SVG: the eight regions on a ring with their roads, banners, markers and
nobles, the King, and each player's score, supply and hand (a seat's view shows its own hand)."""

from __future__ import annotations

import math
from typing import Any

from kingmaker.games.kings_road.data import REGIONS
from kingmaker.server.web.boards.svg import Entry, box, circle, colour, document, label, rect, stack

CENTRE, RADIUS, REGION = 240, 172, 58
PLAYER_W = 290
GAP = 8
MIDDLE = {"anchor": "middle"}


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
    phase = view["phase"].replace("_", " ").lower()
    middle, _ = stack(CENTRE, CENTRE - 16, 120, [(f"round {view['round']}", 14, MIDDLE), (phase, 11, MIDDLE)])
    parts.extend(middle)
    x0, y = 2 * CENTRE + 16, 0.0
    for player in view["standings"]:
        drawn, y = _player(x0, y, player, views, viewer, bots)
        parts.append(drawn)
        y += GAP
    width = x0 + PLAYER_W
    last = "; ".join(
        f"seat {reveal['seat']}: {', '.join(_card(card) for card in reveal['cards']) or 'nothing'}"
        for reveal in view["last_revealed"]
    )
    scored = ", ".join(REGIONS[n].name for n in view["last_scored"])
    lasts: list[Entry] = [
        (f"last round revealed: {last or '-'}", 11, {}),
        (f"last scored: {scored or '-'}", 11, {}),
    ]
    below, bottom = stack(0, max(2 * CENTRE, y) + GAP, width, lasts)
    return document(width, bottom + GAP, parts + below, "King's Road board")


def _region(region: dict[str, Any], king: int) -> str:
    x, y = _position(region["number"])
    top = y - REGION + 10
    name, used = label(
        x, top, 2 * REGION - 26, f"{region['number']} {region['name']}", 10, "middle", 2, bold=True
    )
    values = "banner " + "-".join(str(v) for v in region["values"])
    banner, _ = label(x, top + used + 2, 2 * REGION - 30, values, 9, "middle")
    parts = [name, banner]
    markers = region["markers"]
    left = x - (len(markers) * 17 - 2) / 2
    for seat, count in enumerate(markers):
        count_text, _ = label(left + seat * 17 + 7.5, y + 1, 13, count, 10, "middle", fill="#fff")
        frame = rect(left + seat * 17, y - 1, 15, 17, colour(seat), rx=2, data_seat=seat, data_markers=count)
        parts.append(box(frame, [count_text]))
    below = y + 20
    if region["nobles"]:
        crowned = "noble: " + ", ".join(f"seat {s}" for s in region["nobles"])
        nobles, used = label(x, below, 2 * REGION - 34, crowned, 9, "middle")
        parts.append(nobles)
        below += used + 1
    if region["number"] == king:
        crown, _ = label(x, below, 2 * REGION - 40, "♔ King", 12, "middle", bold=True)
        parts.append(crown)
    frame = circle(
        x, y, REGION, "#f3ecd2", stroke="#8c7a4b", stroke_width=3 if region["number"] == king else 1
    )
    shown = " ".join(str(m) for m in markers)
    return box(frame, parts, class_="region", data_region=region["number"], data_markers=shown)


def _player(
    x: float,
    y: float,
    player: dict[str, Any],
    views: tuple[Any, ...],
    viewer: int | None,
    bots: tuple[str, ...],
) -> tuple[str, float]:
    seat = player["seat"]
    name = bots[seat] if seat < len(bots) else ""
    specials = [
        card for card, held in (("Dragon", player["has_dragon"]), ("Witch", player["has_witch"])) if held
    ]
    if viewer is None or viewer == seat:
        hand = "hand: " + (", ".join(_card(card) for card in views[seat]["hand"]) or "empty")
    else:
        hand = "hand: not this seat's to see" + (f" (holds {', '.join(specials)})" if specials else "")
    entries: list[Entry] = [
        (f"seat {seat} {name}", 13, {"bold": True, "fill": colour(seat)}),
        (f"score {player['score']} · supply {player['supply']} · nobles {player['nobles']}", 12,
         {"class_": "score", "data_seat": seat, "data_score": player["score"]}),
        (hand, 10.5, {"fill": "#555", "class_": "hand"}),
    ]  # fmt: skip
    texts, bottom = stack(x + 8, y + 6, PLAYER_W - 16, entries)
    height = bottom - y + 6
    frame = rect(x, y, PLAYER_W, height, "#fff", stroke=colour(seat), stroke_width=3, rx=6)
    return box(frame, texts, class_="player", data_seat=seat), y + height


_REGION_CARDS = {
    facts.name.upper().replace("'", "").replace(" ", "_"): facts.name for facts in REGIONS.values()
}
"""A region card's name as the region is printed ("Zin Kai's Deep" for ZIN_KAIS_DEEP)."""


def _card(name: str) -> str:
    return _REGION_CARDS.get(name) or name.replace("_", " ").title()
