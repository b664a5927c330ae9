"""A stored match as text for people (``kingmaker replay N --show``): each decision with what
each acting seat saw (its own view, as the referee sent it: hidden information stays hidden),
what it chose and how (bot, default after a fault, fallback), and the chance events between.

A view is printed in full the first time a seat acts, then only the fields that changed since
that seat's previous view. Values are shown by their names (enums by member name, dataclasses as
``Type(field=value)``), the same for every game, straight from the engine's own values.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any

from kingmaker.games.api import GameState


def compact(value: Any, terse: bool = False) -> str:
    """One line: ``PlaceCastle(rank=1, row=0, column=0)``, ``GOLD``, ``[1, 2]``. ``terse`` leaves
    out a nested value's fields that are zero, false, empty or None (but never its first)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        shown = [
            f"{f.name}={compact(getattr(value, f.name), terse)}"
            for number, f in enumerate(dataclasses.fields(value))
            if not terse or number == 0 or getattr(value, f.name) not in (0, False, None, (), [], "")
        ]
        return f"{type(value).__name__}({', '.join(shown)})"
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple | list):
        return "[" + ", ".join(compact(item, terse) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{compact(k)}: {compact(v, terse)}" for k, v in value.items()) + "}"
    return repr(value) if isinstance(value, str) else str(value)


def view_lines(view: Any, before: Any | None) -> list[str]:
    """A seat's view, one field a line; a list of rows or records one item a line (numbered).
    With ``before`` (the seat's previous view) only what changed: fields, and items of lists."""
    lines = []
    for field in dataclasses.fields(view):
        value = getattr(view, field.name)
        old = getattr(before, field.name) if before is not None else None
        if before is not None and old == value:
            continue
        if _is_rows(value):
            lines.append(f"{field.name}:")
            previous = old if isinstance(old, tuple | list) and len(old) == len(value) else None
            for number, row in enumerate(value):
                if previous is not None and previous[number] == row:
                    continue
                lines.append(f"  [{number}] {compact(row, terse=True)}")
        else:
            lines.append(f"{field.name}: {compact(value, terse=True)}")
    return lines


class ChanceLog:
    """Records the draws a state's RNG makes (the engines draw every chance event through
    ``rng.randrange``), so the text can say what chance did between two decisions."""

    def __init__(self, state: GameState) -> None:
        self.draws: list[tuple[int, int]] = []
        inner = getattr(state, "rng", None)
        if inner is not None and callable(getattr(inner, "randrange", None)):
            state.rng = _Recording(inner, self.draws)  # type: ignore[attr-defined]

    def take(self) -> str:
        """The draws since the last call, as text ("" for none)."""
        if not self.draws:
            return ""
        text = ", ".join(f"{value + 1} of {bound}" for bound, value in self.draws)
        self.draws.clear()
        return f"chance: drew {text}"


class _Recording:
    def __init__(self, inner: Any, draws: list[tuple[int, int]]) -> None:
        self._inner = inner
        self._draws = draws

    def randrange(self, n: int) -> int:
        value: int = self._inner.randrange(n)
        self._draws.append((n, value))
        return value

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        import copy

        return copy.deepcopy(self._inner, memo)


def _is_rows(value: Any) -> bool:
    """A list whose items deserve a line each: rows of a grid, or records."""
    return (
        isinstance(value, tuple | list)
        and len(value) > 1
        and all(
            isinstance(row, tuple | list) or (dataclasses.is_dataclass(row) and not isinstance(row, type))
            for row in value
        )
    )


Printer = Callable[[str], None]


class MatchText:
    """Prints a match decision by decision as ``replay.run_again`` plays it."""

    def __init__(self, bots: list[str], sources: list[dict[int, str]], out: Printer) -> None:
        self.bots = bots
        self.sources = sources
        """Per decision, how each seat's action was made ("bot", "default", "fallback"), if known."""
        self.out = out
        self.views: dict[int, Any] = {}
        self.chance: ChanceLog | None = None

    def start(self, state: GameState) -> None:
        self.chance = ChanceLog(state)

    def decision(self, number: int, state: GameState, joint: dict[int, Any]) -> None:
        """Called before the joint action is applied: the views are those the seats were sent."""
        happened = self.chance.take() if self.chance is not None else ""
        if happened:
            self.out(f"      {happened}")
        together = " (simultaneous)" if len(joint) > 1 else ""
        self.out(f"decision {number}{together}")
        for seat, action in sorted(joint.items()):
            view = state.observation(seat)
            lines = view_lines(view, self.views.get(seat))
            self.views[seat] = view
            shown = "sees" if lines else "sees nothing new"
            self.out(f"  seat {seat} ({self.bots[seat]}) {shown}" + (":" if lines else ""))
            for line in lines:
                self.out(f"      {line}")
            how = self.sources[number - 1].get(seat, "") if number - 1 < len(self.sources) else ""
            made = f" [{how}]" if how and how != "bot" else ""
            self.out(f"  seat {seat} plays {compact(action)}{made}")

    def end(self) -> None:
        happened = self.chance.take() if self.chance is not None else ""
        if happened:
            self.out(f"      {happened}")
