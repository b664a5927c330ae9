"""Two stops of one bot at once are one stop. A table's end retires its bots while the server,
shutting down, closes the roster: both stop the same process. Before, both went on to kill and
remove the bot's cgroups (one thread's removal changed the dict the other iterated, which CI
saw as "dictionary changed size during iteration") and both gave the bot's user id back, the
second time after another bot may have taken it, so two bots could share one user."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from kingmaker.server.jail import launcher
from kingmaker.server.jail.cgroups import BotCgroup
from kingmaker.server.jail.launcher import BotProcess, SandboxPolicy


def test_two_stops_at_once_kill_remove_and_give_back_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolate: bool
) -> None:
    calls: Counter[str] = Counter()

    def counting(name: str) -> Callable[[BotCgroup], None]:
        original: Callable[[BotCgroup], None] = getattr(BotCgroup, name)

        def counted(self: BotCgroup) -> None:
            calls[name] += 1
            original(self)

        return counted

    for name in ("kill", "remove"):
        monkeypatch.setattr(BotCgroup, name, counting(name))
    give_back = launcher.BOT_UIDS.give_back

    def counted_give_back(uid: int) -> None:
        calls["give_back"] += 1
        give_back(uid)

    monkeypatch.setattr(launcher.BOT_UIDS, "give_back", counted_give_back)

    async def stop_twice() -> tuple[BotProcess, BotCgroup | None]:
        policy = SandboxPolicy(isolate=isolate)
        process = await BotProcess.start(["sleep", "60"], {}, sandbox=policy, temp_root=tmp_path)
        cgroup = process.cgroup
        await asyncio.gather(process.stop(grace=0), process.stop(grace=0))
        return process, cgroup

    process, cgroup = asyncio.run(stop_twice())
    assert process.process.returncode is not None, "the bot was reaped"
    if cgroup is not None:
        assert (calls["kill"], calls["remove"]) == (1, 1), calls
        assert cgroup.folders == {}
    assert calls["give_back"] == (0 if process.uid is None else 1), calls
    assert process.workdir is not None and not process.workdir.exists()


def test_a_stop_after_the_first_has_ended_returns_at_once(tmp_path: Path) -> None:
    async def stop_again() -> None:
        process = await BotProcess.start(["sleep", "60"], {}, temp_root=tmp_path)
        await process.stop(grace=0)
        await asyncio.wait_for(process.stop(grace=5), timeout=60)

    asyncio.run(stop_again())


def test_a_cancelled_stopper_does_not_leave_the_bot_half_stopped(tmp_path: Path) -> None:
    async def cancel_one() -> BotProcess:
        process = await BotProcess.start(["sleep", "60"], {}, temp_root=tmp_path)
        first = asyncio.ensure_future(process.stop(grace=0))
        await asyncio.sleep(0)
        first.cancel()
        await process.stop(grace=0)
        return process

    process = asyncio.run(cancel_one())
    assert process.process.returncode is not None
    assert process.workdir is not None and not process.workdir.exists()
