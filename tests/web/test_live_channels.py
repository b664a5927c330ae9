"""A match's channel on its own (issue 35): frames that come faster than the pace are sent as the
newest alone, each sent frame encoded once and shared as the same bytes, the last frame always
sent, a league's delay never broken, and a closed channel takes no more frames."""

from __future__ import annotations

import asyncio
import time

from kingmaker.server.live import LiveFrame
from kingmaker.server.web.live_channels import MatchChannel, Sent


def frame(step: int, over: bool = False) -> LiveFrame:
    return LiveFrame("1", "kingdoms", step, (0,), (1,), {"step": step}, over)


def channel(encoded: list[int], delay: float = 0.0) -> MatchChannel:
    def encode(live: LiveFrame) -> bytes:
        encoded.append(live.step)
        return f"step {live.step}".encode()

    return MatchChannel(1, encode, delay)


async def sent_until_over(watched: MatchChannel, after: int = -1) -> list[Sent]:
    """What a stream of the channel sends, from past step ``after`` to the last frame."""
    sent: list[Sent] = []
    while not sent or not sent[-1].over:
        latest = watched.latest
        if latest is not None and latest.step > (sent[-1].step if sent else after):
            sent.append(latest)
        else:
            await watched.wait()
    return sent


def test_frames_faster_than_the_pace_are_sent_as_the_newest_each_encoded_once() -> None:
    async def run() -> tuple[Sent, list[Sent], list[int]]:
        encoded: list[int] = []
        watched = channel(encoded)
        now = time.monotonic()
        for step in range(100):  # all at once: the first send finds the hundredth alone
            watched.deliver(now, frame(step))
        while watched.latest is None:
            await watched.wait()
        first = watched.latest

        async def play() -> None:
            for burst in range(100, 200, 10):  # ten frames at a time, 5 ms apart or more
                await asyncio.sleep(0.005)
                for step in range(burst, burst + 10):
                    watched.deliver(time.monotonic(), frame(step, over=step == 199))

        playing = asyncio.ensure_future(play())
        streams = await asyncio.gather(sent_until_over(watched, 99), sent_until_over(watched, 99))
        await playing
        assert streams[0] == streams[1]  # two streams: the very same frames, the same bytes
        return first, streams[0], encoded

    first, sent, encoded = asyncio.run(run())
    assert first == Sent(99, b"step 99", False)
    assert sent[-1].step == 199 and sent[-1].over  # the last frame is always sent
    steps = [item.step for item in sent]
    assert steps == sorted(set(steps))
    assert all(step % 10 == 9 for step in steps)  # the newest of its burst: the others skipped
    assert encoded == [99, *steps]  # each sent frame encoded once, and no other


def test_a_delayed_frame_is_never_sent_before_its_time() -> None:
    async def run() -> tuple[float, float, list[Sent]]:
        watched = channel([], delay=0.5)
        published = time.monotonic()
        watched.deliver(published, frame(0))
        watched.deliver(published, frame(1, over=True))
        sent = await sent_until_over(watched)
        return published, time.monotonic(), sent

    published, arrived, sent = asyncio.run(run())
    assert arrived - published >= 0.5
    assert [item.step for item in sent] == [1]


def test_a_closed_channel_takes_no_more_frames() -> None:
    async def run() -> MatchChannel:
        watched = channel([])
        watched.close()
        watched.deliver(time.monotonic(), frame(0))
        await asyncio.sleep(0.2)
        return watched

    watched = asyncio.run(run())
    assert watched.latest is None and not watched.frames
