"""A server the operator lets run bots unjailed (``--allow-unjailed`` where no jail works) still
unpacks and builds a submission by the same steps, each in a process of its own."""

from __future__ import annotations

import asyncio
import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import build_archive
from kingmaker.server.jail.sandbox import SandboxPolicy, bubblewrap

MANIFEST = 'run = "./bot"\nbuild = "printf \'#!/bin/sh\\n\' > bot; chmod +x bot"\n'


@pytest.fixture
def no_jail(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("KINGMAKER_BWRAP", "none")
    bubblewrap.cache_clear()  # probed afresh here, and again after (the real answer)
    yield
    monkeypatch.undo()
    bubblewrap.cache_clear()


def test_an_unjailed_server_builds_a_submission_by_the_same_steps(no_jail: None, tmp_path: Path) -> None:
    archive = tmp_path / "a.tar"
    with tarfile.open(archive, "w") as tar:
        info = tarfile.TarInfo("kingmaker.toml")
        info.size = len(MANIFEST)
        tar.addfile(info, io.BytesIO(MANIFEST.encode()))
    store = BuildStore(tmp_path / "builds")
    tmp_path.chmod(0o755)  # (a user of the step's own, under root, reaches its folders through it)
    unjailed = SandboxPolicy(allow_unjailed=True)
    result = asyncio.run(build_archive(archive, "tar", store, unjailed, temp_root=tmp_path))
    assert result.ok, result.reason
    assert result.folder is not None and (result.folder / "bot").is_file()
    refused = asyncio.run(build_archive(archive, "tar", store, SandboxPolicy(), temp_root=tmp_path))
    assert not refused.ok and "no jail" in refused.reason
