"""A bracket drawn as a tree, in SVG made on the server (no script, no library): one column per
stage, each meeting a box of its two entries (the winner marked), joined to the meeting its winner
goes on to; each box links to its league (its matches and replays), and a meeting in play has a
"live" link to its match's board."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from kingmaker.ladder.competitions.competition_records import BracketMeeting

COLUMN = 190
"""Width of a stage's column, box and gap together."""
BOX_W, ROW_H, GAP = 150, 20, 16
"""A box's width, the height of one entry's line in it, and the space between two first-stage boxes."""


def bracket_svg(meetings: Sequence[BracketMeeting], live: Mapping[str, int]) -> str:
    """The tree's SVG element; ``live`` maps a meeting's league to a match of it in play."""
    if not meetings:
        return ""
    first = [m for m in meetings if m.stage == 1]
    stages = max(m.stage for m in meetings)
    slot_h = 2 * ROW_H + GAP
    height = len(first) * slot_h
    width = stages * COLUMN
    parts = [
        f'<svg id="bracket-tree" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="the bracket as a tree">'
    ]
    for meeting in meetings:
        x, y = _box_at(meeting, slot_h)
        if meeting.stage < stages:  # the line to the meeting its winner goes on to
            after = BracketMeeting(meeting.stage + 1, meeting.slot // 2, (None, None))
            nx, ny = _box_at(after, slot_h)
            mid = x + BOX_W + (COLUMN - BOX_W) / 2
            parts.append(
                f'<path class="edge" d="M{x + BOX_W} {y + ROW_H} H{mid} V{ny + ROW_H} H{nx}" '
                'fill="none" stroke="currentColor" stroke-width="1"/>'
            )
        parts.append(meeting_box(meeting, x, y, live))
    parts.append("</svg>")
    return "".join(parts)


def _box_at(meeting: BracketMeeting, slot_h: float) -> tuple[float, float]:
    """Top-left corner: each stage's meetings centred between the two they follow."""
    span = slot_h * (2 ** (meeting.stage - 1))
    centre = (meeting.slot + 0.5) * span
    return (meeting.stage - 1) * COLUMN, centre - ROW_H


def meeting_box(meeting: BracketMeeting, x: float, y: float, live: Mapping[str, int]) -> str:
    """One meeting's box at (x, y): its two entries (the winner in bold; an empty seat says what
    it waits for, or "bye"), linking its league, and a "live" link while a match of it is in play."""
    rows = []
    for index, bot in enumerate(meeting.bots):
        won = bot is not None and bot == meeting.winner
        empty = meeting.waiting[index] or ("bye" if meeting.stage == 1 or meeting.side else "…")
        shown = bot if bot is not None else empty
        weight = ' font-weight="bold"' if won else ""
        rows.append(
            f'<text x="{x + 6}" y="{y + ROW_H * index + 14}" class="{"won" if won else "entry"}"{weight} '
            f'data-bot="{escape(bot or "")}">{escape(shown)}</text>'
        )
    box = (
        f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{2 * ROW_H}" rx="3" fill="none" '
        'stroke="currentColor"/>'
        f'<line x1="{x}" y1="{y + ROW_H}" x2="{x + BOX_W}" y2="{y + ROW_H}" stroke="currentColor" '
        'stroke-opacity="0.3"/>' + "".join(rows)
    )
    attributes = f'class="meeting" data-stage="{meeting.stage}" data-slot="{meeting.slot}"'
    if meeting.side:
        attributes += f' data-side="{escape(meeting.side)}" data-round="{meeting.round}"'
    if not meeting.played:
        attributes += ' data-played="no" stroke-dasharray="4 3" opacity="0.5"'
    if meeting.league is not None:
        box = f'<a href="/leagues/{escape(meeting.league)}" class="meeting-link">{box}</a>'
        match = live.get(meeting.league)
        if match is not None:
            box += (
                f'<a href="/matches/{match}" class="live"><text x="{x + BOX_W - 30}" y="{y - 3}" '
                f'font-size="11">live</text></a>'
            )
    return f"<g {attributes}>{box}</g>"
