"""A few helpers for writing SVG by hand: every value escaped, every number rounded."""

from __future__ import annotations

from html import escape

SEAT_COLOURS = ("#d9534f", "#337ab7", "#5cb85c", "#f0ad4e", "#9b59b6")
"""One colour per seat, the same on every page."""


def colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)] if seat >= 0 else "#888"


def attrs(**values: object) -> str:
    """` name="value"` pairs; a trailing underscore is dropped (class_), underscores become dashes."""
    parts = []
    for name, value in values.items():
        if value is None:
            continue
        key = name.rstrip("_").replace("_", "-")
        shown = f"{value:.1f}" if isinstance(value, float) else str(value)
        parts.append(f' {key}="{escape(shown)}"')
    return "".join(parts)


def rect(x: float, y: float, w: float, h: float, fill: str, **more: object) -> str:
    return f"<rect{attrs(x=x, y=y, width=w, height=h, fill=fill, **more)}/>"


def circle(cx: float, cy: float, r: float, fill: str, **more: object) -> str:
    return f"<circle{attrs(cx=cx, cy=cy, r=r, fill=fill, **more)}/>"


def text(x: float, y: float, content: object, size: int = 12, **more: object) -> str:
    return f"<text{attrs(x=x, y=y, font_size=size, **more)}>{escape(str(content))}</text>"


def group(content: list[str] | str, **more: object) -> str:
    body = "".join(content) if isinstance(content, list) else content
    return f"<g{attrs(**more)}>{body}</g>"


def document(width: int, height: int, content: list[str], label: str) -> str:
    body = "".join(content)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}"'
        f' width="{width}" height="{height}" role="img" aria-label="{escape(label)}"'
        f' font-family="sans-serif">{body}</svg>'
    )
