"""Kingdoms drawn as SVG: the 5 x 6 grid with its tiles and castles, each player's gold and castles
in hand, and the tiles only a seat may see (its starting tile, the tile it has drawn)."""

from __future__ import annotations

from typing import Any

from kingmaker.server.web.boards.svg import circle, colour, document, group, rect, text

CELL = 70
TILE_COLOURS = {
    "RESOURCE": "#f4e3a1",
    "HAZARD": "#e8a7a0",
    "MOUNTAIN": "#b0a89c",
    "DRAGON": "#c0504d",
    "GOLD_MINE": "#f2c94c",
    "WIZARD": "#a78bd4",
}


def draw(views: tuple[Any, ...], viewer: int | None, bots: tuple[str, ...], secrets: dict[str, Any]) -> str:
    view = views[0 if viewer is None else viewer]
    parts: list[str] = []
    for r, row in enumerate(view["board"]):
        for c, cell in enumerate(row["cells"]):
            parts.append(_cell(r, c, cell))
    top = 5 * CELL + 20
    parts.append(
        text(
            0,
            top,
            f"epoch {view['epoch']} · supply {view['supply_size']} tiles · turn: "
            + ("over" if view["turn"] is None else f"seat {view['turn']}"),
            13,
        )
    )
    x0 = 6 * CELL + 20
    for player in view["players"]:
        seat = player["seat"]
        y = 10 + seat * 64
        castles = " ".join(f"r{rank + 1}×{n}" for rank, n in enumerate(player["castles"]) if n)
        lines = [
            rect(x0, y, 250, 58, "#fff", stroke=colour(seat), stroke_width=3, rx=6),
            text(
                x0 + 8,
                y + 18,
                f"seat {seat} {bots[seat] if seat < len(bots) else ''}",
                13,
                font_weight="bold",
                fill=colour(seat),
            ),
            text(
                x0 + 8,
                y + 36,
                f"gold {player['gold']} · castles {castles or '-'}",
                12,
                class_="gold",
                data_seat=seat,
                data_gold=player["gold"],
            ),
            text(x0 + 8, y + 52, _private(views, viewer, seat, player), 11, fill="#555"),
        ]
        parts.append(group(lines, class_="player", data_seat=seat))
    if viewer is None and secrets.get("supply"):
        parts.append(text(0, top + 20, "supply (hidden): " + ", ".join(secrets["supply"]), 11, fill="#777"))
    return document(6 * CELL + 290, 5 * CELL + 64, parts, "Kingdoms board")


def _private(views: tuple[Any, ...], viewer: int | None, seat: int, player: dict[str, Any]) -> str:
    if viewer is not None and viewer != seat:
        return "starting tile: hidden" if player["holds_starting_tile"] else ""
    own = views[seat]
    shown = []
    if own["starting_tile"]:
        shown.append(f"starting tile: {own['starting_tile']['name']}")
    if own["drawn_tile"]:
        shown.append(f"drawn: {own['drawn_tile']['name']}")
    return " · ".join(shown)


def _cell(r: int, c: int, cell: dict[str, Any]) -> str:
    x, y = c * CELL, r * CELL
    tile, castle = cell["tile"], cell["castle"]
    parts = [rect(x + 1, y + 1, CELL - 2, CELL - 2, "#eef3e6", stroke="#99a", rx=4)]
    if tile is not None:
        parts.append(rect(x + 4, y + 4, CELL - 8, CELL - 8, TILE_COLOURS.get(tile["kind"], "#ddd"), rx=4))
        parts.append(text(x + CELL / 2, y + 28, tile["name"], 10, text_anchor="middle"))
        if tile["value"]:
            parts.append(
                text(
                    x + CELL / 2, y + 48, f"{tile['value']:+d}", 15, text_anchor="middle", font_weight="bold"
                )
            )
    if castle is not None:
        parts.append(circle(x + CELL / 2, y + CELL / 2, 22, colour(castle["owner"]), stroke="#333"))
        parts.append(
            text(
                x + CELL / 2,
                y + CELL / 2 + 6,
                castle["rank"],
                18,
                text_anchor="middle",
                fill="#fff",
                font_weight="bold",
            )
        )
    return group(
        parts,
        class_="cell",
        data_row=r,
        data_column=c,
        data_tile=tile["name"] if tile else None,
        data_castle=f"{castle['owner']}:{castle['rank']}" if castle else None,
    )
