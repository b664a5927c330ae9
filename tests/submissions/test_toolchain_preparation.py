"""Toolchain caches prepared ahead (`kingmaker serve --prepare-toolchains`): prepared in the
background as the server starts, without delaying it, so an author's first build finds its
language's cache ready instead of waiting for its preparation (issue 47: Go's takes ~20 s of CPU);
the start-up lines and `kingmaker doctor` say which caches are ready. The stand-in language
"slowc" of tests/submissions/test_toolchain_caches.py stands for Go and Rust here."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
from test_toolchain_caches import author, build, manifest, slowc  # noqa: F401  (slowc: a fixture)
from typer.testing import CliRunner

from kingmaker.kits.languages import Readiness
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.building import builds, toolchain_caches, toolchain_preparation
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.toolchain_preparation import (
    NOT_PREPARED,
    CacheState,
    cache_states,
    kit_key,
    prepare_ahead,
)
from kingmaker.server.cli import app, doctor
from kingmaker.server.cli.serve import _toolchain_caches
from kingmaker.server.jail.sandbox import SandboxPolicy, bubblewrap

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="bubblewrap does not work here")


def prepare(store: Path, languages: Sequence[str] = ("slowc",)) -> list[str]:
    said: list[str] = []
    asyncio.run(prepare_ahead(BuildStore(store), SandboxPolicy(), None, said.append, languages))
    return said


def test_a_cache_prepared_ahead_is_ready_and_the_first_build_starts_from_it(
    slowc: list[str],  # noqa: F811  (the fixture)
    tmp_path: Path,
) -> None:
    store = tmp_path / "builds"
    assert cache_states(store, ["slowc"]) == [CacheState("slowc", False, NOT_PREPARED)]
    said = prepare(store)
    assert said[0] == "slowc toolchain cache: preparing in the background"
    assert said[1].startswith("slowc toolchain cache: ready (") and said[1].endswith(" s)"), said
    assert cache_states(store, ["slowc"]) == [CacheState("slowc", True, "ready")]
    first = build(author(tmp_path / "alice"), store)
    assert first.ok, first.reason
    assert "libraries from cache: compiled-by-bot" in first.log
    assert prepare(store) == [], "a ready cache is not prepared again"
    assert len(list((tmp_path / "caches").glob("slowc-*"))) == 1


def test_a_failed_preparation_is_said_and_the_state_says_why(
    slowc: list[str],  # noqa: F811  (the fixture)
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    def broken_kit(folder: Path, language: str, games: Sequence[str] = (), name: str | None = None) -> Path:
        folder.mkdir(parents=True)
        (folder / "kingmaker.toml").write_text(manifest("echo no compiler here >&2; exit 7"))
        return folder

    monkeypatch.setattr(builds, "write_kit", broken_kit)
    said = prepare(tmp_path / "builds")
    assert said[-1].startswith("slowc toolchain cache not prepared: its kit did not build"), said
    assert said[-1].endswith("; its builds go on without it")
    (state,) = cache_states(tmp_path / "builds", ["slowc"])
    assert not state.ready and state.words.startswith("failed: its kit did not build")


def test_caches_off_are_said_and_not_prepared(
    slowc: list[str],  # noqa: F811  (the fixture)
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv(toolchain_caches.ENVIRONMENT, "off")
    assert cache_states(tmp_path / "builds", ["slowc"]) == [
        CacheState("slowc", False, "off (KINGMAKER_TOOLCHAIN_CACHES=off)")
    ]
    assert prepare(tmp_path / "builds") == []


def test_serve_says_the_caches_state_and_prepares_them_without_waiting(
    slowc: list[str],  # noqa: F811  (the fixture)
    monkeypatch: pytest.MonkeyPatch,
    kingmaker_home: Path,
    tmp_path: Path,
) -> None:
    """What `kingmaker serve --prepare-toolchains` runs once the server has started. Every kit it
    writes (to read its key, to prepare its cache) is written in the server's run folder, which
    the next server's start clears if this one is killed meanwhile (each SIGKILL at start-up left
    one in /tmp before)."""
    monkeypatch.setattr(toolchain_preparation, "cache_languages", lambda: ["slowc"])
    written_in: list[Path] = []
    write_cache_kit = builds.write_cache_kit

    def noted(work: Path, language: str) -> tuple[Path, str]:
        written_in.append(work.parent)
        return write_cache_kit(work, language)

    monkeypatch.setattr(builds, "write_cache_kit", noted)
    config = ServerConfig(address="127.0.0.1:0", database_url=f"sqlite:///{tmp_path / 'k.db'}")
    server = BackgroundServer(config)
    run_folder = server.server.run_folder
    said: list[str] = []

    async def start_preparing() -> list[str]:
        preparing = await _toolchain_caches(server.server, True, said.append)
        at_once = list(said)  # before the preparation is over: serving goes on meanwhile
        assert preparing is not None
        await preparing
        return at_once

    try:
        at_once = server.run(start_preparing())
    finally:
        server.stop()
    assert at_once[0] == "toolchain caches: slowc not prepared (preparing them in the background)"
    assert "slowc toolchain cache: ready" not in " ".join(at_once)
    assert said[-1].startswith("slowc toolchain cache: ready ("), said
    assert len(written_in) >= 2 and run_folder is not None, written_in  # (a key read, a preparation)
    assert set(written_in) == {run_folder}, written_in


def test_the_doctor_says_whether_a_cache_is_ready_in_this_home(
    kingmaker_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    caches = tmp_path / "caches"
    (caches / f"go-{kit_key('go')[:16]}").mkdir(parents=True)  # as if prepared from today's kit
    monkeypatch.setenv(toolchain_caches.ENVIRONMENT, str(caches))
    monkeypatch.setenv("COLUMNS", "200")
    # Each toolchain's own probe (a trivial Go or Rust build, half a minute of CPU) is
    # tests/kits/test_doctor.py's; here only the cache column is asked about.
    monkeypatch.setattr(doctor, "check", lambda language: Readiness(language, True, ""))
    said = {}
    for language in ("go", "rust"):
        done = CliRunner().invoke(app, ["doctor", "--lang", language])
        assert done.exit_code == 0, done.output
        said[language] = " ".join(done.stdout.split())
    later = "a cache not prepared is prepared at its language's first build, which waits for it"
    assert "ready" in said["go"] and later not in said["go"], said["go"]
    assert "not prepared" in said["rust"] and later in said["rust"], said["rust"]
