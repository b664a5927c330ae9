"""The live hub's pace (issue 35): a watched match whose decisions come faster than ``PACE_S``
has a frame built for the first, then for the newest at each beat, never for one a later
decision replaced; the match's last frame is always built and published, even after the referee
let go of the match, and at once (before its result is reported); a match nobody watches any
more gets none."""

from __future__ import annotations

import asyncio

from kingmaker.server.live import LiveFrame, LiveHub


def frame(step: int, over: bool = False) -> LiveFrame:
    return LiveFrame("7", "kingdoms", step, (0,), (1,), {"step": step}, over)


def test_decisions_faster_than_the_pace_build_the_first_and_the_newest() -> None:
    async def run() -> tuple[list[int], list[int]]:
        hub = LiveHub()
        hub.bind(asyncio.get_running_loop())
        built: list[int] = []
        got: list[int] = []
        hub.subscribe("7", lambda stamp, live: got.append(live.step))
        hub.attach("7", lambda: frame(0))

        def build(step: int) -> LiveFrame:
            built.append(step)
            return frame(step, over=step == 199)

        for step in range(1, 100):  # in one go: the first now, the newest at the next beat
            hub.offer("7", lambda step=step: build(step))
        while got[-1] != 99:
            await asyncio.sleep(0.01)
        for step in range(100, 200):
            hub.offer("7", lambda step=step: build(step))
        hub.detach("7")  # the referee is done: its last frame comes all the same
        while got[-1] != 199:
            await asyncio.sleep(0.01)
        return built, got

    built, got = asyncio.run(run())
    # (the hundredth may come after the pace's beat, on a busy machine: then it is built at once)
    assert built[:2] == [1, 99] and built[-1] == 199 and set(built[2:-1]) <= {100}
    assert got == [0, *built]


def test_a_match_nobody_watches_any_more_gets_no_frame() -> None:
    async def run() -> list[int]:
        hub = LiveHub()
        hub.bind(asyncio.get_running_loop())
        built: list[int] = []

        def build(step: int) -> LiveFrame:
            built.append(step)
            return frame(step)

        watching = hub.subscribe("7", lambda stamp, live: None)
        hub.attach("7", lambda: frame(0))
        hub.offer("7", lambda: build(1))
        hub.offer("7", lambda: build(2))  # waits for the beat
        hub.unsubscribe(watching)
        await asyncio.sleep(0.3)
        return built

    assert asyncio.run(run()) == [1]


def test_the_last_frame_is_published_when_the_referee_lets_go_before_its_result() -> None:
    async def run() -> list[int]:
        hub = LiveHub()
        hub.bind(asyncio.get_running_loop())
        got: list[int] = []
        hub.subscribe("7", lambda stamp, live: got.append(live.step))
        hub.attach("7", lambda: frame(0))
        hub.offer("7", lambda: frame(1))  # built now
        hub.offer("7", lambda: frame(2, over=True))  # the last decision, within the pace
        hub.detach("7")  # the referee is done (its result is reported next): the last frame is out
        at_detach = list(got)
        await asyncio.sleep(0.3)  # the pace's beat: nothing more
        assert got == at_detach
        return got

    assert asyncio.run(run()) == [0, 1, 2]
