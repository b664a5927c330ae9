"""The server's hold on glibc's allocator (``server.malloc``): arenas capped, free memory handed
back now and then, and nothing at all where the C library is not glibc."""

from __future__ import annotations

import asyncio
import platform

import pytest

from kingmaker.server import malloc


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc only")
def test_on_glibc_the_arenas_are_capped_and_free_memory_is_handed_back() -> None:
    assert malloc.limit_arenas()
    assert isinstance(malloc.trim(), bool)


def test_free_memory_is_handed_back_every_so_often(monkeypatch: pytest.MonkeyPatch) -> None:
    trims: list[float] = []
    monkeypatch.setattr(malloc, "trim", lambda: trims.append(1.0) or True)

    async def run_a_while() -> None:
        trimming = asyncio.create_task(malloc.trim_now_and_then(every_s=0.01))
        await asyncio.sleep(0.3)
        trimming.cancel()
        await asyncio.gather(trimming, return_exceptions=True)

    asyncio.run(run_a_while())
    assert len(trims) >= 2


def test_without_glibc_nothing_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(malloc, "_glibc", lambda: None)
    assert not malloc.limit_arenas()
    assert not malloc.trim()
    asyncio.run(asyncio.wait_for(malloc.trim_now_and_then(every_s=0.01), 1))  # returns at once
