"""Kingsburg drawn as SVG: the advisor track (18 advisors and the dice influencing them), each
player's province board (the 20 buildings in board order, goods, soldiers and dice), the Envoy
and the enemy card for whoever may see it."""

from __future__ import annotations

from typing import Any

from kingmaker.games.kingsburg.data import ADVISOR_NAMES, Building
from kingmaker.server.web.boards.svg import colour, document, group, rect, text

SPACE_W, SPACE_H = 74, 62
BUILDINGS = [building.name for building in Building]


def draw(views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...], secrets: dict[str, Any]) -> str:
    view = views[0 if viewer is None else viewer]
    parts = [
        text(
            0,
            14,
            f"year {view['year']} · {view['phase'].replace('_', ' ').lower()} · "
            f"deciding: {view['decision'].replace('_', ' ').lower()} "
            f"{' '.join(f'seat {s}' for s in view['acting'])}",
            13,
        ),
    ]
    for index, space in enumerate(view["court"]):
        parts.append(_advisor(index, space))
    top = 24 + 2 * SPACE_H + 16
    for province in view["provinces"]:
        parts.append(_province(province, top, bots, view["envoy_holder"]))
    rows = (len(view["provinces"]) + 2) // 3
    enemy = _enemy(views, viewer, secrets)
    parts.append(text(0, top + rows * 175 + 12, enemy, 12, class_="enemy"))
    height = top + rows * 175 + 24
    return document(9 * SPACE_W + 8, height, parts, "Kingsburg board")


def _advisor(index: int, space: dict[str, Any]) -> str:
    x, y = (index % 9) * SPACE_W, 24 + (index // 9) * SPACE_H
    advisor = space["advisor"]
    parts = [
        rect(x + 1, y + 1, SPACE_W - 2, SPACE_H - 2, "#f7f1e1", stroke="#b9a46b", rx=4),
        text(x + 4, y + 13, f"{advisor} {ADVISOR_NAMES[advisor - 1]}", 9, font_weight="bold"),
    ]
    for row, dice_group in enumerate(space["groups"][:3]):
        dice = [*dice_group["coloured"], *dice_group["white"]]
        label = "+".join(str(d) for d in dice) + (" +2" if dice_group["plus_two"] else "")
        parts.append(rect(x + 4, y + 18 + row * 14, SPACE_W - 8, 12, colour(dice_group["owner"]), rx=2))
        parts.append(text(x + 7, y + 28 + row * 14, label, 9, fill="#fff"))
    owners = " ".join(str(g["owner"]) for g in space["groups"])
    return group(parts, class_="advisor", data_advisor=advisor, data_owners=owners)


def _province(province: dict[str, Any], top: int, bots: tuple[str, ...], envoy: int) -> str:
    seat = province["seat"]
    x, y = (seat % 3) * 222, top + (seat // 3) * 175
    name = bots[seat] if seat < len(bots) else ""
    built = set(province["buildings"])
    parts = [
        rect(x, y, 216, 168, "#fff", stroke=colour(seat), stroke_width=3, rx=6),
        text(
            x + 6,
            y + 16,
            f"seat {seat} {name}" + (" · Envoy" if envoy == seat else ""),
            12,
            font_weight="bold",
            fill=colour(seat),
        ),
        text(
            x + 6,
            y + 32,
            f"VP {province['vp']} · gold {province['gold']} · wood {province['wood']}"
            f" · stone {province['stone']}",
            11,
            class_="vp",
            data_vp=province["vp"],
        ),
        text(x + 6, y + 46, f"soldiers {province['soldiers']} · +2 tokens {province['plus_two']}", 11),
    ]
    for index, building in enumerate(BUILDINGS):
        bx, by = x + 6 + (index % 5) * 41, y + 54 + (index // 5) * 22
        have = building in built
        parts.append(
            rect(
                bx,
                by,
                39,
                20,
                colour(seat) if have else "#eee",
                rx=3,
                opacity=0.85 if have else 1,
                data_building=building,
                data_built="yes" if have else "no",
            )
        )
        parts.append(
            text(bx + 3, by + 13, building.replace("_", " ").title()[:8], 7, fill="#fff" if have else "#888")
        )
    dice = [*province["coloured_dice"], *province["white_dice"]]
    if dice:
        parts.append(text(x + 6, y + 160, "dice " + " ".join(str(d) for d in dice), 11))
    return group(parts, class_="province", data_seat=seat)


def _enemy(views: tuple[Any, ...], viewer: int | None, secrets: dict[str, Any]) -> str:
    seen = (
        views[viewer]["enemy"]
        if viewer is not None
        else next((view["enemy"] for view in views if view["enemy"]), secrets.get("enemy"))
    )
    if not seen:
        return "enemy: hidden until winter"
    hidden = " (hidden from the seats)" if viewer is None and secrets.get("enemy") else ""
    return f"enemy: {seen['kind'].title()} strength {seen['strength']}{hidden}"
