"""Builds run at a low CPU weight, so matches go first: the cgroup's weight file where a cpu
controller is usable, a ``nice`` value where none is. While they run, their weight is raised to
a floor, so that a loaded ladder cannot starve them (issue 47: 0.1-0.4% of a CPU at a load of 30)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import pytest
from proc_stat import NICE, stat_field

from kingmaker.server.building.build_clock import BUILD_SHARE, build_weight
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import build_folder
from kingmaker.server.building.submission_limits import BUILD_LIMITS, BuildLimits
from kingmaker.server.jail.cgroups import BotCgroup, cgroup_support
from kingmaker.server.jail.in_child import nice_for_weight
from kingmaker.server.jail.launcher import BotProcess
from kingmaker.server.jail.sandbox import Limits, SandboxPolicy, bubblewrap


@pytest.mark.skipif("cpu" not in cgroup_support().controllers, reason="no usable cpu controller here")
def test_a_low_weight_is_written_to_the_process_cgroup_and_no_nice_is_added(tmp_path: Path) -> None:
    async def started() -> tuple[dict[str, str], int]:
        process = await BotProcess.start(
            ["sleep", "60"], {}, limits=Limits(cpu_weight=10), temp_root=tmp_path
        )
        try:
            assert process.cgroup is not None
            written = {}
            for folder, tree in process.cgroup.folders.items():
                if "cpu" in tree.controllers:
                    name = "cpu.weight" if tree.version == 2 else "cpu.shares"
                    written[name] = (folder / name).read_text().strip()
            return written, int(stat_field(process.process.pid, NICE))
        finally:
            await process.stop(grace=0)

    written, nice = asyncio.run(started())
    assert written in ({"cpu.weight": "10"}, {"cpu.shares": "102"})
    assert nice == 0


@pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")
def test_without_cgroups_a_build_runs_nice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BotCgroup, "create", classmethod(lambda cls, *args, **kwargs: None))
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "kingmaker.toml").write_text('run = "./bot"\nbuild = "nice >&2 && touch bot"\n')
    limits = BuildLimits(seconds=120, limits=dataclasses.replace(BUILD_LIMITS))
    built = asyncio.run(build_folder(folder, BuildStore(tmp_path / "builds"), SandboxPolicy(), limits))
    assert built.ok, built.reason
    printed = [line for line in built.log.splitlines() if line.strip().isdigit()]
    assert printed == [str(nice_for_weight(BUILD_LIMITS.cpu_weight))], built.log


def test_the_builds_together_weigh_their_share_of_what_is_runnable() -> None:
    assert build_weight(10, builds=1, load=0.0) == 10, "an idle machine: the base weight"
    one = build_weight(10, builds=1, load=30.0)
    assert one / (one + 30 * 100) == pytest.approx(BUILD_SHARE, abs=0.01)
    five = build_weight(10, builds=5, load=30.0)
    assert 5 * five / (5 * five + 30 * 100) == pytest.approx(BUILD_SHARE, abs=0.01), "five share one floor"
    assert build_weight(10, builds=1, load=10_000.0) == 10_000, "cgroup's highest weight"


@pytest.mark.skipif("cpu" not in cgroup_support().controllers, reason="no usable cpu controller here")
@pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")
def test_a_running_build_is_weighed_up_to_its_floor_on_a_loaded_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (30.0, 30.0, 30.0))
    written: list[str] = []
    set_weight = BotCgroup.set_cpu_weight

    def recorded(group: BotCgroup, weight: int) -> bool:
        done = set_weight(group, weight)
        for folder, tree in group.folders.items():
            if "cpu" in tree.controllers:
                name = "cpu.weight" if tree.version == 2 else "cpu.shares"
                written.append((folder / name).read_text().strip())
        return done

    monkeypatch.setattr(BotCgroup, "set_cpu_weight", recorded)
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "kingmaker.toml").write_text('run = "./bot"\nbuild = "sleep 1; touch bot"\n')
    built = asyncio.run(build_folder(folder, BuildStore(tmp_path / "builds"), SandboxPolicy(), BuildLimits()))
    assert built.ok, built.reason
    floor = build_weight(BUILD_LIMITS.cpu_weight, builds=1, load=30.0)
    assert floor > 10 * BUILD_LIMITS.cpu_weight
    assert written[:1] in ([str(floor)], [str(floor * 1024 // 100)])
