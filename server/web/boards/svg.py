"""A few helpers for writing SVG by hand: every value escaped, every number rounded; text that
fits its box (``text.py`` measures and wraps it); boxes the tests can check it against.

A ``box`` is a group whose first child is its frame (a rect or circle): every text inside it must
lie inside that frame. Text outside any box must lie inside the board.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from html import escape

from kingmaker.server.web.boards.text import ASCENT, LEADING, Fitted, fit

SEAT_COLOURS = ("#d9534f", "#337ab7", "#5cb85c", "#f0ad4e", "#9b59b6")
"""One colour per seat, the same on every page."""
READABLE_PX = 8.0
"""The smallest a board's label may be shown on a screen."""
FONT_SIZE = re.compile(r'font-size="([0-9.]+)"')


def colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)] if seat >= 0 else "#888"


def attrs(**values: object) -> str:
    """` name="value"` pairs; a trailing underscore is dropped (class_), underscores become dashes."""
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        key = name.rstrip("_").replace("_", "-")
        shown = number(value) if isinstance(value, float) else str(value)
        parts.append(f' {key}="{escape(shown)}"')
    return "".join(parts)


def number(value: float) -> str:
    """One decimal at most, and none when it is 0: a number is written the same whether the
    arithmetic made it an int or a float, as the browser's drawing of a live board (which has no
    ints) writes it (static/boards.js)."""
    shown = f"{value:.1f}"
    return shown[:-2] if shown.endswith(".0") else shown


def rect(x: float, y: float, w: float, h: float, fill: str, **more: object) -> str:
    return f"<rect{attrs(x=x, y=y, width=w, height=h, fill=fill, **more)}/>"


def circle(cx: float, cy: float, r: float, fill: str, **more: object) -> str:
    return f"<circle{attrs(cx=cx, cy=cy, r=r, fill=fill, **more)}/>"


def text(x: float, y: float, content: object, size: int = 12, **more: object) -> str:
    return f"<text{attrs(x=x, y=y, font_size=size, **more)}>{escape(str(content))}</text>"


def group(content: list[str] | str, **more: object) -> str:
    body = "".join(content) if isinstance(content, list) else content
    return f"<g{attrs(**more)}>{body}</g>"


def box(frame: str, content: list[str], class_: str = "", **more: object) -> str:
    """A group framed by ``frame`` (its first child): its text stays inside the frame."""
    return group([frame, *content], class_=f"box {class_}".strip(), **more)


def lines(x: float, top: float, fitted: Fitted, anchor: str = "start", **more: object) -> str:
    """``fitted``'s lines as one text element, its first line's top at ``top``."""
    size = fitted.size
    spans = []
    for index, line in enumerate(fitted.lines):
        step = attrs(dy=f"{size * LEADING:.1f}") if index else ""
        spans.append(f"<tspan{attrs(x=x)}{step}>{escape(line)}</tspan>")
    anchoring = {} if anchor == "start" else {"text_anchor": anchor}
    placed = attrs(x=x, y=top + ASCENT * size, font_size=f"{size:g}", **anchoring, **more)
    return f"<text{placed}>{''.join(spans)}</text>"


def label(
    x: float,
    top: float,
    room: float,
    content: object,
    size: float,
    anchor: str = "start",
    max_lines: int | None = None,
    bold: bool = False,
    **more: object,
) -> tuple[str, float]:
    """``content`` fitted to ``room`` wide, from ``top`` down (``x`` is its left edge, centre or
    right edge as ``anchor`` says); the text element and the height it takes."""
    fitted = fit(str(content), room, size, max_lines, bold)
    weight = {"font_weight": "bold"} if bold else {}
    return lines(x, top, fitted, anchor, **weight, **more), fitted.height


Entry = tuple[object, float, Mapping[str, object]]
"""A label of a ``stack``: its content, its size, its attributes (``bold=True`` among them for bold)."""


def stack(
    x: float, top: float, room: float, entries: Sequence[Entry], gap: float = 3
) -> tuple[list[str], float]:
    """Labels one under the other; the text elements and where the last one ends."""
    parts = []
    y = top
    for content, size, more in entries:
        options = dict(more)
        bold = bool(options.pop("bold", False))
        anchor = str(options.pop("anchor", "start"))
        if bold:
            options["font_weight"] = "bold"
        fitted = fit(str(content), room, size, bold=bold)
        parts.append(lines(x, y, fitted, anchor, **options))
        y += fitted.height + gap
    return parts, y - gap


def document(width: float, height: float, content: list[str], label: str) -> str:
    """The board: its natural size in the attributes; the page's style lets it shrink to fit, but
    no further than keeps its smallest label ``READABLE_PX`` (a narrower window scrolls the board
    in its box: 5-6 px text on a phone cannot be read)."""
    body = "".join(content)
    width, height = round(width), round(height)
    sizes = [float(size) for size in FONT_SIZE.findall(body)]
    smallest = min(sizes, default=READABLE_PX)
    narrowest = math.ceil(width * min(1.0, READABLE_PX / smallest))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
        f' width="{width}" height="{height}" style="min-width: {narrowest}px" role="img"'
        f' aria-label="{escape(label)}" font-family="DejaVu Sans, Verdana, sans-serif">{body}</svg>'
    )
