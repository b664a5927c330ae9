"""A language's toolchain cache: prepared once by building its kit in the jail, then every build of
that language starts from a copy of it; no build can change it; a failed preparation leaves
builds working, only slower, and says so. A stand-in language ("slowc") with a kit of its own
stands for Go and Rust here (their real caches: tests/kits/test_kits_submit.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from kingmaker.server.building import builds, toolchain_caches
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import BuildResult, build_folder
from kingmaker.server.building.submission_limits import BUILD_LIMITS, BuildLimits
from kingmaker.server.jail.sandbox import MiB, SandboxPolicy, bubblewrap

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="bubblewrap does not work here")

LIMITS = BuildLimits(seconds=120, limits=dataclasses.replace(BUILD_LIMITS, disk_bytes=16 * MiB))

# The stand-in's build: slow the first time (a second of CPU), then it reads its cache's marker.
BUILD = (
    "if [ -f .cache/compiled ]; then echo 'libraries from cache:' $(cat .cache/compiled); "
    "else i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; mkdir -p .cache; "
    "echo compiled-by-$(basename $(pwd)) > .cache/compiled; echo 'libraries compiled'; fi; "
    "printf '#!/bin/sh\\n' > bot; chmod +x bot"
)


def manifest(build: str = BUILD) -> str:
    return f'run = "./bot"\nbuild = "{build}"\nlanguage = "slowc"\n'


@pytest.fixture
def slowc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The stand-in language, its caches in their own folder; the kits it writes, by name."""
    written: list[str] = []

    def write_kit(folder: Path, language: str, games: Sequence[str] = (), name: str | None = None) -> Path:
        assert language == "slowc"
        written.append(str(name))
        folder.mkdir(parents=True)
        (folder / "kingmaker.toml").write_text(manifest())
        return folder

    monkeypatch.setitem(toolchain_caches.SEEDS, "slowc", (".cache",))
    monkeypatch.setattr(builds, "write_kit", write_kit)
    monkeypatch.setenv(toolchain_caches.ENVIRONMENT, str(tmp_path / "caches"))
    return written


def author(root: Path, build: str = BUILD) -> Path:
    root.mkdir(parents=True)
    (root / "kingmaker.toml").write_text(manifest(build))
    return root


def build(folder: Path, store: Path) -> BuildResult:
    return asyncio.run(build_folder(folder, BuildStore(store), SandboxPolicy(), LIMITS))


def test_a_languages_builds_start_from_the_cache_its_kit_prepared_once(
    slowc: list[str], tmp_path: Path
) -> None:
    first = build(author(tmp_path / "alice"), tmp_path / "builds")
    assert first.ok, first.reason
    assert (
        "starts from the server's prepared slowc toolchain cache (/toolchain-cache, read-only)" in first.log
    )
    assert "libraries from cache: compiled-by-bot" in first.log  # (the kit was built at /bot too)
    second = build(author(tmp_path / "bob"), tmp_path / "builds")
    assert second.ok, second.reason
    assert "libraries from cache: compiled-by-bot" in second.log
    assert slowc == [toolchain_caches.KIT_NAME, toolchain_caches.KIT_NAME]  # (its key, once built)
    prepared = list((tmp_path / "caches").iterdir())
    assert len(prepared) == 1 and prepared[0].name.startswith("slowc-")
    assert (prepared[0] / ".cache" / "compiled").read_text() == "compiled-by-bot\n"
    assert not (prepared[0] / ".cache" / "compiled").stat().st_mode & 0o222


def test_an_authors_own_cache_is_kept_over_the_prepared_one(slowc: list[str], tmp_path: Path) -> None:
    folder = author(tmp_path / "alice")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "compiled").write_text("her own\n")
    result = build(folder, tmp_path / "builds")
    assert result.ok, result.reason
    assert "libraries from cache: her own" in result.log


def test_a_build_cannot_write_the_prepared_cache(slowc: list[str], tmp_path: Path) -> None:
    writes = "echo poisoned > /toolchain-cache/.cache/compiled"
    refused = build(author(tmp_path / "mallory", writes), tmp_path / "builds")
    assert not refused.ok
    assert "Read-only file system" in refused.log or "Permission denied" in refused.log
    # Its own copy it may change, but the next build starts from the prepared cache again.
    changes_copy = f"echo poisoned > .cache/compiled && {BUILD}"
    changed = build(author(tmp_path / "mallory2", changes_copy), tmp_path / "builds")
    assert changed.ok, changed.reason
    assert "libraries from cache: poisoned" in changed.log
    after = build(author(tmp_path / "bob"), tmp_path / "builds")
    assert after.ok, after.reason
    assert "libraries from cache: compiled-by-bot" in after.log


def test_a_failed_preparation_leaves_builds_working_without_the_cache_and_says_why(
    slowc: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken_kit(folder: Path, language: str, games: Sequence[str] = (), name: str | None = None) -> Path:
        slowc.append(str(name))
        folder.mkdir(parents=True)
        (folder / "kingmaker.toml").write_text(manifest("echo no compiler here >&2; exit 7"))
        return folder

    monkeypatch.setattr(builds, "write_kit", broken_kit)
    with caplog.at_level(logging.WARNING, "kingmaker.server.building.builds"):
        first = build(author(tmp_path / "alice"), tmp_path / "builds")
    assert first.ok, first.reason
    assert "libraries compiled" in first.log
    assert (
        "no prepared slowc toolchain cache (its kit did not build: the build failed with exit code 7"
        in first.log
    )
    assert "this build compiles its libraries itself" in first.log
    assert "the slowc toolchain cache could not be prepared" in caplog.text
    second = build(author(tmp_path / "bob"), tmp_path / "builds")
    assert second.ok and "libraries compiled" in second.log
    assert "no prepared slowc toolchain cache" in second.log
    assert len(slowc) == 1  # not tried again by this process
    assert not list((tmp_path / "caches").glob("slowc-*"))


def test_caches_off_builds_as_before(
    slowc: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(toolchain_caches.ENVIRONMENT, "off")
    result = build(author(tmp_path / "alice"), tmp_path / "builds")
    assert result.ok, result.reason
    assert "libraries compiled" in result.log and "toolchain cache" not in result.log
    assert slowc == []


def test_a_hard_linked_file_made_a_copy_of_its_own_keeps_its_times(tmp_path: Path) -> None:
    # cargo links each build script under two names and judges the crates after it by its time:
    # a copy with a new time would make a prepared cache's every crate stale.
    from kingmaker.server.building.archive_step import settle

    (tmp_path / "build-script-build").write_text("#!/bin/sh\n")
    os.link(tmp_path / "build-script-build", tmp_path / "build_script_build-0123")
    os.utime(tmp_path / "build-script-build", (1_000_000_000.25, 1_000_000_000.25))
    settle(tmp_path)
    for name in ("build-script-build", "build_script_build-0123"):
        assert (tmp_path / name).stat().st_nlink == 1
        assert (tmp_path / name).stat().st_mtime == 1_000_000_000.25
