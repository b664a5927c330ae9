"""A bot's rating over its matches as an inline SVG line chart: mu with its ±3 sigma band and the
conservative rating (mu - 3 sigma) the standings sort by."""

from __future__ import annotations

import itertools
from typing import Any

from markupsafe import Markup

from kingmaker.server.web.boards.svg import document, text

WIDTH, HEIGHT, PAD = 560, 200, 34


def rating_plot(points: list[dict[str, Any]], game: str) -> Markup:
    """The chart for ``points`` (as ``queries.bot_page`` gives them), safe to put in a page."""
    if not points:
        empty = [text(0, 18, "no rated match yet", 12)]
        return Markup(document(WIDTH, 30, empty, f"{game} rating history"))
    xs = [point["matches"] for point in points]
    lows = [point["mu"] - 3 * point["sigma"] for point in points]
    highs = [point["mu"] + 3 * point["sigma"] for point in points]
    x_low, x_high = min(xs), max(max(xs), min(xs) + 1)
    y_low, y_high = min(lows), max(highs)
    if y_high - y_low < 1:
        y_high = y_low + 1

    def x_at(x: float) -> float:
        return float(PAD + (x - x_low) / (x_high - x_low) * (WIDTH - 2 * PAD))

    def at(x: float, y: float) -> str:
        py = HEIGHT - PAD + (y_low - y) / (y_high - y_low) * (HEIGHT - 2 * PAD)
        return f"{x_at(x):.1f},{py:.1f}"

    band = " ".join(at(x, y) for x, y in zip(xs, highs, strict=True))
    band += " " + " ".join(at(x, y) for x, y in zip(reversed(xs), reversed(lows), strict=True))
    mu = " ".join(at(point["matches"], point["mu"]) for point in points)
    conservative = " ".join(at(point["matches"], point["conservative"]) for point in points)
    parts = [
        f'<polygon points="{band}" fill="#cfe0f3" opacity="0.7"/>',
        f'<polyline class="mu" points="{mu}" fill="none" stroke="#337ab7" stroke-width="2"/>',
        f'<polyline class="conservative" points="{conservative}" fill="none" stroke="#d9534f"'
        f' stroke-width="2" data-points="{len(points)}"/>',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#888"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#888"/>',
        text(PAD, HEIGHT - 12, f"match {x_low}", 10),
        text(WIDTH - PAD, HEIGHT - 12, f"match {x_high}", 10, text_anchor="end"),
        text(2, PAD - 6, f"{y_high:.1f}", 10),
        text(2, HEIGHT - PAD, f"{y_low:.1f}", 10),
        text(WIDTH - PAD, 14, "mu ±3σ (blue), conservative (red)", 10, text_anchor="end"),
    ]
    # Where a new version started to play: a dashed line, labelled with the version.
    for before, point in itertools.pairwise(points):
        if point.get("version") is not None and point.get("version") != before.get("version"):
            x = x_at(point["matches"])
            parts.append(
                f'<line class="version-change" data-version="{point["version"]}" x1="{x:.1f}" y1="{PAD}" '
                f'x2="{x:.1f}" y2="{HEIGHT - PAD}" stroke="#5cb85c" stroke-dasharray="4 3"/>'
            )
            parts.append(text(x + 3, PAD + 10, f"v{point['version']}", 10))
    return Markup(document(WIDTH, HEIGHT, parts, f"{game} rating history"))
