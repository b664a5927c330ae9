"""What every benchmark section returns, and how the suite prints and saves it.

The machine is shared and noisy (timings drift 2x between runs), so a figure means something only
beside its reference measured in the same run. ``alternate`` runs a measurement and its reference
in turn, several times, and a ``Row`` keeps the median and the min-max of both.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table


@dataclass(frozen=True)
class Spread:
    """The median of several runs and the range they fell in."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        return cls(statistics.median(values), min(values), max(values))

    def text(self, digits: int = 0) -> str:
        return f"{self.median:,.{digits}f} ({self.low:,.{digits}f}-{self.high:,.{digits}f})"


@dataclass(frozen=True)
class Row:
    section: str
    what: str
    unit: str
    value: Spread
    reference: str = ""
    """What the figure is compared with (measured in the same run), if anything."""
    reference_value: Spread | None = None
    goal: str = ""
    """The target, as a sentence ("≥ 0.6 of the transport"), if there is one."""
    met: bool | None = None
    load: Spread | None = None
    """The machine's 1-minute load average as each run began, where the section reads it."""

    @property
    def ratio(self) -> float | None:
        if self.reference_value is None or not self.reference_value.median:
            return None
        return self.value.median / self.reference_value.median


def alternate(
    measure: Callable[[], float], reference: Callable[[], float], runs: int
) -> tuple[Spread, Spread]:
    """Run ``measure`` and ``reference`` in turn ``runs`` times each; their spreads."""
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(runs):
        theirs.append(reference())
        ours.append(measure())
    return Spread.of(ours), Spread.of(theirs)


def alternate_with_load(
    measure: Callable[[], float], reference: Callable[[], float], runs: int
) -> tuple[Spread, Spread, Spread]:
    """``alternate``, and the 1-minute load average read before each pair: on a shared machine a
    figure means little without how busy the machine was while it was measured."""
    loads: list[float] = []

    def reference_after_load() -> float:
        loads.append(os.getloadavg()[0])
        return reference()

    ours, theirs = alternate(measure, reference_after_load, runs)
    return ours, theirs, Spread.of(loads)


def print_rows(rows: Sequence[Row], title: str) -> None:
    table = Table(title=title)
    columns = ["section", "what", "median (min-max)", "unit", "reference (min-max)", "ratio", "goal"]
    loaded = any(row.load is not None for row in rows)
    for column in columns + (["load (min-max)"] if loaded else []):
        table.add_column(column, overflow="fold")
    for row in rows:
        ratio = row.ratio
        goal = row.goal + ("" if row.met is None else " ✓" if row.met else " ✗")
        digits = 2 if row.value.median < 10 else 0
        cells = [
            row.section,
            row.what,
            row.value.text(digits),
            row.unit,
            (row.reference + ": " + row.reference_value.text(digits))
            if row.reference_value
            else row.reference,
            f"{ratio:.2f}" if ratio is not None else "",
            goal,
        ]
        if loaded:
            cells.append(row.load.text(1) if row.load is not None else "")
        table.add_row(*cells)
    Console().print(table)


def save_rows(rows: Sequence[Row], path: Path) -> None:
    data = [asdict(row) | {"ratio": row.ratio} for row in rows]
    path.write_text(json.dumps(data, indent=2) + "\n")
