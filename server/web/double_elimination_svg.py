"""A double-elimination bracket drawn as trees, in SVG made on the server: the winners' bracket on
top (a column a round), the losers' bracket below it (a column a round), and the grand final with
its reset to their right, joined to the two brackets' finals. Each meeting is a box as in the
single-elimination tree (``bracket_svg.meeting_box``: its league's link, a "live" link while a
match of it is in play, the winner in bold, an empty seat saying what it waits for)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kingmaker.ladder.competitions.competition_records import BracketMeeting
from kingmaker.server.web.bracket_svg import BOX_W, COLUMN, GAP, ROW_H, meeting_box

TITLE_H = 24
"""Room above each tree for its title."""
SLOT_H = 2 * ROW_H + GAP


def double_elimination_svg(meetings: Sequence[BracketMeeting], live: Mapping[str, int]) -> str:
    """The three trees' SVG element; ``live`` maps a meeting's league to a match of it in play."""
    if not meetings:
        return ""
    winners = [m for m in meetings if m.side == "winners"]
    losers = [m for m in meetings if m.side == "losers"]
    finals = [m for m in meetings if m.side in ("grand final", "reset")]
    w_rows = sum(1 for m in winners if m.round == 1)
    l_rows = max((sum(1 for m in losers if m.round == r) for r in (1, 2)), default=0)
    w_top, w_height = TITLE_H, w_rows * SLOT_H
    l_top = w_top + w_height + TITLE_H
    l_height = l_rows * SLOT_H
    w_rounds = max(m.round for m in winners)
    l_rounds = max((m.round for m in losers), default=0)
    columns = max(w_rounds, l_rounds)
    width = (columns + len(finals)) * COLUMN
    height = l_top + l_height if losers else w_top + w_height
    at: dict[tuple[str, int, int], tuple[float, float]] = {}
    for tree, top, tall in ((winners, w_top, w_height), (losers, l_top, l_height)):
        for m in tree:
            count = sum(1 for other in tree if other.round == m.round)
            centre = top + (m.index + 0.5) * tall / count
            at[(m.side, m.round, m.index)] = ((m.round - 1) * COLUMN, centre - ROW_H)
    middle = (w_top + height) / 2 - ROW_H
    for offset, m in enumerate(finals):
        at[(m.side, 1, 0)] = ((columns + offset) * COLUMN, middle)
    parts = [
        f'<svg id="bracket-tree" class="double-elimination" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        'aria-label="the double-elimination bracket as trees">'
    ]
    for title, key, y, tree in (
        ("Winners' bracket", "winners-bracket", w_top, winners),
        ("Losers' bracket", "losers-bracket", l_top, losers),
        ("Grand final", "grand-final", middle, finals),
    ):
        if not tree:
            continue
        x = at[(tree[0].side, tree[0].round, tree[0].index)][0]
        parts.append(f'<g class="tree" id="{key}"><text class="tree-title" x="{x}" y="{y - 8}">')
        parts.append(f"{title}</text>")
        for m in tree:
            follows = _next(m, w_rounds, l_rounds)
            if follows in at:
                parts.append(_edge(at[(m.side, m.round, m.index)], at[follows]))
        for m in tree:
            x, y = at[(m.side, m.round, m.index)]
            parts.append(meeting_box(m, x, y, live))
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _next(m: BracketMeeting, w_rounds: int, l_rounds: int) -> tuple[str, int, int]:
    """The meeting this one's winner goes on to."""
    if m.side == "winners":
        return ("winners", m.round + 1, m.index // 2) if m.round < w_rounds else ("grand final", 1, 0)
    if m.side == "losers":
        if m.round == l_rounds:
            return ("grand final", 1, 0)
        return ("losers", m.round + 1, m.index if m.round % 2 else m.index // 2)
    return ("reset", 1, 0) if m.side == "grand final" else ("", 0, 0)


def _edge(start: tuple[float, float], end: tuple[float, float]) -> str:
    (x, y), (nx, ny) = start, end
    mid = x + BOX_W + (COLUMN - BOX_W) / 2 if nx > x + BOX_W else x + BOX_W
    return (
        f'<path class="edge" d="M{x + BOX_W} {y + ROW_H} H{mid} V{ny + ROW_H} H{nx}" '
        'fill="none" stroke="currentColor" stroke-width="1"/>'
    )
