"""A size is what a file can become (issue 43, finding 2): a build that leaves sparse files is
counted at their full length, its entries are counted, and no copy of a built folder turns a hole
into memory. Before, ``truncate -s 400M`` three times (0 blocks on the build's tmpfs) was kept as
1.2 GiB of real blocks and copied into ``/dev/shm`` once per running process of the bot."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

import pytest

from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import BuildResult, build_folder
from kingmaker.server.building.submission_limits import BUILD_LIMITS, BuildLimits
from kingmaker.server.jail.folder_bound import FolderBound, FolderTooBig
from kingmaker.server.jail.no_follow import copy_tree
from kingmaker.server.jail.sandbox import MiB, SandboxPolicy, bubblewrap

needs_jail = pytest.mark.skipif(not bubblewrap().usable, reason="bubblewrap does not work here")

SMALL = BuildLimits(
    seconds=120, limits=dataclasses.replace(BUILD_LIMITS, processes=24, disk_bytes=8 * MiB), log_bytes=4096
)


def build(tmp_path: Path, command: str, limits: BuildLimits = SMALL) -> BuildResult:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "kingmaker.toml").write_text(f'run = "./x"\nbuild = "{command}; touch x; chmod +x x"\n')
    return asyncio.run(build_folder(folder, BuildStore(tmp_path / "builds"), SandboxPolicy(), limits))


def occupied(path: Path) -> int:
    return path.stat().st_blocks * 512


@needs_jail
def test_sparse_files_past_the_builds_disk_quota_are_refused_at_their_full_length(tmp_path: Path) -> None:
    result = build(tmp_path, "truncate -s 5M a b")  # 0 blocks in an 8 MiB folder, 10 MiB long
    assert not result.ok
    assert result.reason.startswith("the built folder cannot be kept: the build left files adding up to")
    assert "8 MiB (the bound)" in result.reason and "sparse" in result.reason
    assert os.listdir(tmp_path / "builds") == []


@needs_jail
def test_a_sparse_file_within_the_quota_is_kept_with_its_holes(tmp_path: Path) -> None:
    result = build(tmp_path, "truncate -s 6M hollow")
    assert result.ok, result.reason
    assert result.folder is not None
    hollow = result.folder / "hollow"
    assert hollow.stat().st_size == 6 * MiB
    assert occupied(hollow) < MiB  # (it went through the jail's tar and the store's copy)


@needs_jail
def test_a_build_leaving_more_files_than_its_bound_is_refused(tmp_path: Path) -> None:
    limits = dataclasses.replace(SMALL, files=100)
    result = build(tmp_path, "mkdir many && cd many && seq 1 300 | xargs touch", limits)
    assert not result.ok
    assert result.reason == (
        "the built folder cannot be kept: the build left more than 100 files, folders and links (the bound)"
    )


def test_the_hosts_copy_keeps_holes_and_stops_past_its_bound(tmp_path: Path) -> None:
    source = tmp_path / "built"
    source.mkdir()
    with (source / "hollow").open("wb") as hollow:
        hollow.write(b"start")
        hollow.seek(64 * MiB)
        hollow.write(b"end")
    copied = copy_tree(source, tmp_path / "copy", FolderBound(65 * MiB, 10))
    copy = tmp_path / "copy" / "hollow"
    assert copied == 64 * MiB + 3 and copy.stat().st_size == 64 * MiB + 3
    assert occupied(copy) < MiB
    with copy.open("rb") as read:
        assert read.read(5) == b"start"
        read.seek(64 * MiB)
        assert read.read() == b"end"
    with pytest.raises(FolderTooBig, match="more than 32 MiB"):
        copy_tree(source, tmp_path / "refused", FolderBound(32 * MiB, 10))
