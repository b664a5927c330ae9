"""The bounds of a seat's per-step output hold for any text: each step keeps at most
``STEP_BYTES`` of its start, a seat at most ``SEAT_BYTES`` per match (a character cut in two
included), a step that printed nothing is not kept, and the packed form gives them back."""

from __future__ import annotations

from kingmaker.ladder.step_output import SEAT_BYTES, STEP_BYTES, StepOutput, bounded, pack_steps, unpack_steps


def test_each_step_and_the_seat_stay_within_their_bounds_whatever_the_text() -> None:
    wide = "a" + "é€😀" * 5000  # 2-, 3- and 4-byte characters: the bounds fall inside one
    data = wide.encode()
    steps = bounded([(number, data[: STEP_BYTES + 7], len(data)) for number in range(20)])
    sizes = [len(step.text.encode()) for step in steps]
    assert all(size <= STEP_BYTES for size in sizes)
    assert sum(sizes) <= SEAT_BYTES and sum(sizes) > SEAT_BYTES - 4 * len(steps), "the budget used"
    assert all(wide.startswith(step.text.rstrip("\ufffd")) for step in steps if step.text), (
        "each step's start"
    )
    assert not steps[-1].text and steps[-1].bytes == len(data) and steps[-1].cut


def test_a_quiet_step_is_not_kept_and_packing_gives_the_steps_back() -> None:
    steps = bounded([(0, b"", 0), (2, b"thinking\n", 9), (4, b"", 0), (6, b"done\n", 5)])
    assert steps == (StepOutput(2, "thinking\n", 9), StepOutput(6, "done\n", 5))
    assert unpack_steps(pack_steps(steps)) == list(steps)
    assert pack_steps(()) is None and unpack_steps(None) == []
    assert unpack_steps(b"not deflated json") == [], "a damaged column reads as no steps"
