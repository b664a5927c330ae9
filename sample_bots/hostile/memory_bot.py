"""Tries to allocate 10 GiB at once.

Reports ``MemoryError`` when the address-space limit refuses it, or ``allocated 10 GiB`` (the
pages are never touched, so even then the machine does not suffer).
"""

from __future__ import annotations

from kingmaker.sample_bots.hostile.common import report

TEN_GIB = 10 * 1024**3


def main() -> None:
    try:
        block = bytearray(TEN_GIB)
    except MemoryError:
        report("MemoryError")
        return
    report(f"allocated {len(block) // 1024**3} GiB")


if __name__ == "__main__":
    main()
