"""Text that fits its box: SVG text does not wrap, so the boards measure and wrap it here.

Widths are DejaVu Sans's advance widths (the sans-serif of Debian's Chromium, and as wide as the
common sans-serif faces, so a label measured here fits in the narrower ones too). Lines break at
spaces only, never inside a word; a word wider than its box makes the whole label smaller
instead. ``fit`` finds the largest size, from the one asked down, at which a label fits its box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Advance widths of the printable ASCII characters (space to ~) in thousandths of an em,
# read from DejaVuSans.ttf and DejaVuSans-Bold.ttf.
_REGULAR = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636,
    636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775,
    752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390,
    337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
)  # fmt: skip
_BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696,
    696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821,
    837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457,
    365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
    716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
)  # fmt: skip
_OTHERS = {"·": 380, "×": 838, "±": 838, "σ": 779, "−": 838, "♔": 897, "—": 1000, "…": 1000}
"""The few other characters the boards write (bold widths, the wider); anything else counts 1 em."""

ASCENT, DESCENT = 0.929, 0.236
"""Above and below the baseline, in ems: the height a line of text takes on screen."""
LEADING = 1.2
"""From one baseline to the next, in ems."""
SMALLEST = 5.0
"""A label never shrinks below this size (only a single word wider than its box would ask it to)."""


def width(text: str, size: float, bold: bool = False) -> float:
    """How wide ``text`` is at ``size`` px."""
    table = _BOLD if bold else _REGULAR
    total = 0
    for char in text:
        code = ord(char) - 32
        total += table[code] if 0 <= code < len(table) else _OTHERS.get(char, 1000)
    return total * size / 1000


def wrap(text: str, room: float, size: float, bold: bool = False) -> list[str]:
    """``text`` in lines no wider than ``room``, broken at spaces only (a word wider than the room
    stands alone on its line; ``fit`` shrinks the label so that it does not)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if line and width(candidate, size, bold) > room:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


def height(lines: int, size: float) -> float:
    """The height ``lines`` lines take at ``size``."""
    return size * ((lines - 1) * LEADING + ASCENT + DESCENT) if lines else 0.0


@dataclass(frozen=True)
class Fitted:
    size: float
    lines: tuple[str, ...]

    @property
    def height(self) -> float:
        return height(len(self.lines), self.size)


def fit(text: str, room: float, size: float, max_lines: int | None = None, bold: bool = False) -> Fitted:
    """``text`` wrapped into ``room`` at the largest size from ``size`` down (by half pixels) at which
    every line fits and there are at most ``max_lines`` of them."""
    current = size
    while True:
        lines = wrap(text, room, current, bold)
        widest = max((width(line, current, bold) for line in lines), default=0.0)
        fits = widest <= room and (max_lines is None or len(lines) <= max_lines)
        if fits or current <= SMALLEST:
            if not fits and widest > room:  # one word too wide even so: scale to the room exactly
                current = math.floor(current * room / widest * 10) / 10
            return Fitted(current, tuple(lines))
        current -= 0.5
