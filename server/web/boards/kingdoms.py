"""Kingdoms drawn as SVG: the 5 x 6 grid with its tiles and castles, each player's gold and castles
in hand, and the tiles only a seat may see (its starting tile, the tile it has drawn)."""

from __future__ import annotations

from typing import Any

from kingmaker.server.web.boards.svg import Entry, box, circle, colour, document, label, rect, stack

CELL = 74
PLAYER_W = 270
GAP = 8
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
    x0, y = 6 * CELL + 2 * GAP, 0.0
    for player in view["players"]:
        drawn, y = _player(x0, y, player, views, viewer, bots)
        parts.append(drawn)
        y += GAP
    width = x0 + PLAYER_W
    turn = "over" if view["turn"] is None else f"seat {view['turn']}"
    status = f"epoch {view['epoch']} · supply {view['supply_size']} tiles · turn: {turn}"
    texts: list[Entry] = [(status, 13.0, {})]
    if viewer is None and secrets.get("supply"):
        texts.append(
            ("supply (hidden from the seats): " + ", ".join(secrets["supply"]), 11.0, {"fill": "#666"})
        )
    below, bottom = stack(0, 5 * CELL + GAP, width, texts)
    return document(width, max(bottom, y) + GAP, parts + below, "Kingdoms board")


def _player(
    x: float,
    y: float,
    player: dict[str, Any],
    views: tuple[Any, ...],
    viewer: int | None,
    bots: tuple[str, ...],
) -> tuple[str, float]:
    seat = player["seat"]
    castles = ", ".join(f"rank {rank + 1} ×{n}" for rank, n in enumerate(player["castles"]) if n)
    entries: list[Entry] = [
        (f"seat {seat} {bots[seat] if seat < len(bots) else ''}", 13, {"bold": True, "fill": colour(seat)}),
        (f"gold {player['gold']} · castles in hand: {castles or 'none'}", 12,
         {"class_": "gold", "data_seat": seat, "data_gold": player["gold"]}),
    ]  # fmt: skip
    private = _private(views, viewer, seat, player)
    if private:
        entries.append((private, 11, {"fill": "#555"}))
    texts, bottom = stack(x + 8, y + 6, PLAYER_W - 16, entries)
    height = bottom - y + 6
    frame = rect(x, y, PLAYER_W, height, "#fff", stroke=colour(seat), stroke_width=3, rx=6)
    return box(frame, texts, class_="player", data_seat=seat), y + height


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
    parts = []
    if tile is not None:
        parts.append(rect(x + 4, y + 4, CELL - 8, CELL - 8, TILE_COLOURS.get(tile["kind"], "#ddd"), rx=4))
        name, used = label(x + CELL / 2, y + 8, CELL - 14, tile["name"], 10, anchor="middle", max_lines=2)
        parts.append(name)
        if tile["value"]:
            value, _ = label(x + CELL / 2, y + 12 + max(used, 24), CELL - 14, f"{tile['value']:+d}", 15,
                             anchor="middle", bold=True)  # fmt: skip
            parts.append(value)
    if castle is not None:
        parts.append(circle(x + CELL / 2, y + CELL / 2, 22, colour(castle["owner"]), stroke="#333"))
        rank, _ = label(
            x + CELL / 2, y + CELL / 2 - 10, 30, castle["rank"], 18, anchor="middle", bold=True, fill="#fff"
        )
        parts.append(rank)
    frame = rect(x + 1, y + 1, CELL - 2, CELL - 2, "#eef3e6", stroke="#99a", rx=4)
    return box(
        frame,
        parts,
        class_="cell",
        data_row=r,
        data_column=c,
        data_tile=tile["name"] if tile else None,
        data_castle=f"{castle['owner']}:{castle['rank']}" if castle else None,
    )
