"""Kingsburg drawn as SVG: the advisor track (18 advisors and the dice influencing them), each
player's province board (the 20 buildings in board order, goods, soldiers and dice), the Envoy
and the enemy card for whoever may see it."""

from __future__ import annotations

from typing import Any

from kingmaker.games.kingsburg.data import ADVISOR_NAMES, Building
from kingmaker.server.web.boards.svg import Entry, box, colour, document, label, lines, rect, stack
from kingmaker.server.web.boards.text import fit

SPACE_W, SPACE_H = 82, 86
CELL_W, CELL_H = 64, 28
"""A building's space on a province board: two lines of 9 px, so every name shows whole."""
PROVINCE_W = 5 * CELL_W + 4 * 3 + 16
GAP = 8
BUILDINGS = [building.name for building in Building]


def draw(views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...], secrets: dict[str, Any]) -> str:
    view = views[0 if viewer is None else viewer]
    width = max(9 * SPACE_W, 2 * PROVINCE_W + GAP)
    acting = " ".join(f"seat {s}" for s in view["acting"])
    heading = (
        f"year {view['year']} · {view['phase'].replace('_', ' ').lower()} · "
        f"deciding: {view['decision'].replace('_', ' ').lower()} {acting}"
    )
    parts, top = stack(0, 0, width, [(heading, 13.0, {})])
    top += GAP
    for index, space in enumerate(view["court"]):
        parts.append(_advisor(index, space, top))
    y = top + 2 * SPACE_H + GAP
    row_bottom = y
    for province in view["provinces"]:
        column = province["seat"] % 2
        if column == 0:
            y = row_bottom
        drawn, bottom = _province(province, column * (PROVINCE_W + GAP), y, bots, view["envoy_holder"])
        parts.append(drawn)
        row_bottom = max(row_bottom, bottom + GAP)
    enemy, bottom = stack(0, row_bottom, width, [(_enemy(views, viewer, secrets), 12.0, {"class_": "enemy"})])
    parts.extend(enemy)
    return document(width, bottom + GAP, parts, "Kingsburg board")


def _advisor(index: int, space: dict[str, Any], top: float) -> str:
    x, y = (index % 9) * SPACE_W, top + (index // 9) * SPACE_H
    advisor = space["advisor"]
    name, used = label(
        x + 5, y + 5, SPACE_W - 10, f"{advisor} {ADVISOR_NAMES[advisor - 1]}", 10, max_lines=2, bold=True
    )
    parts = [name]
    for row, dice_group in enumerate(space["groups"][:3]):
        dice = [*dice_group["coloured"], *dice_group["white"]]
        text = "+".join(str(d) for d in dice) + (" +2" if dice_group["plus_two"] else "")
        dy = y + 8 + max(used, 24) + row * 15
        die, _ = label(x + 8, dy + 1.5, SPACE_W - 16, text, 10, fill="#fff")
        parts.append(box(rect(x + 5, dy, SPACE_W - 10, 14, colour(dice_group["owner"]), rx=2), [die]))
    owners = " ".join(str(g["owner"]) for g in space["groups"])
    frame = rect(x + 1, y + 1, SPACE_W - 2, SPACE_H - 2, "#f7f1e1", stroke="#b9a46b", rx=4)
    return box(frame, parts, class_="advisor", data_advisor=advisor, data_owners=owners)


def _province(
    province: dict[str, Any], x: float, y: float, bots: tuple[str, ...], envoy: int
) -> tuple[str, float]:
    seat = province["seat"]
    name = bots[seat] if seat < len(bots) else ""
    goods = f"gold {province['gold']} · wood {province['wood']} · stone {province['stone']}"
    entries: list[Entry] = [
        (
            f"seat {seat} {name}" + (" · holds the Envoy" if envoy == seat else ""),
            12,
            {"bold": True, "fill": colour(seat)},
        ),
        (f"VP {province['vp']} · {goods}", 11, {"class_": "vp", "data_vp": province["vp"]}),
        (f"soldiers {province['soldiers']} · +2 tokens {province['plus_two']}", 11, {}),
    ]
    parts, bottom = stack(x + 8, y + 6, PROVINCE_W - 16, entries)
    top = bottom + 6
    built = set(province["buildings"])
    for index, building in enumerate(BUILDINGS):
        bx, by = x + 8 + (index % 5) * (CELL_W + 3), top + (index // 5) * (CELL_H + 3)
        have = building in built
        fitted = fit(building.replace("_", " ").title(), CELL_W - 6, 9, max_lines=2)
        text = lines(
            bx + CELL_W / 2,
            by + (CELL_H - fitted.height) / 2,
            fitted,
            "middle",
            fill="#fff" if have else "#666",
        )
        look = {
            "opacity": 0.85 if have else 1,
            "data_building": building,
            "data_built": "yes" if have else "no",
        }
        frame = rect(bx, by, CELL_W, CELL_H, colour(seat) if have else "#eee", rx=3, **look)
        parts.append(box(frame, [text]))
    bottom = top + 4 * (CELL_H + 3)
    dice = [*province["coloured_dice"], *province["white_dice"]]
    if dice:
        rolled, bottom = stack(
            x + 8, bottom + 3, PROVINCE_W - 16, [("dice " + " ".join(map(str, dice)), 11, {})]
        )
        parts.extend(rolled)
    height = bottom - y + 8
    frame = rect(x, y, PROVINCE_W, height, "#fff", stroke=colour(seat), stroke_width=3, rx=6)
    return box(frame, parts, class_="province", data_seat=seat), y + height


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
