"""Under a root server, no work on an author's files runs as root (issue 32): the unpacking and the
build each run in the jail as a user id of their own, and what is kept is the server's."""

from __future__ import annotations

import asyncio
import io
import os
import tarfile
from pathlib import Path

import pytest

from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import build_archive
from kingmaker.server.building.jailed_unpack import unpack_in_jail
from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.jail.bot_users import BotUids
from kingmaker.server.jail.sandbox import SandboxPolicy, bubblewrap, running_as_root

pytestmark = [
    pytest.mark.skipif(not bubblewrap().usable, reason="the steps run in the jail"),
    pytest.mark.skipif(not running_as_root(), reason="a user of the step's own needs a root server"),
]

MANIFEST = 'run = "./bot"\nbuild = "id -u; id -u > built-by; printf \'#!/bin/sh\\n\' > bot; chmod +x bot"\n'


def archive_with(path: Path, files: dict[str, str]) -> Path:
    with tarfile.open(path, "w") as archive:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(text.encode()), 0o644
            archive.addfile(info, io.BytesIO(text.encode()))
    return path


def a_steps_own(uid: int) -> bool:
    return BotUids.FIRST <= uid < BotUids.FIRST + BotUids.COUNT


def test_the_unpacking_writes_as_a_user_of_its_own(tmp_path: Path) -> None:
    archive = archive_with(tmp_path / "a.tar", {"kingmaker.toml": MANIFEST, "notes/readme": "hello"})
    out = tmp_path / "out"
    out.mkdir()
    manifest = asyncio.run(unpack_in_jail(archive, "tar", ArchiveLimits(), out, SandboxPolicy(), tmp_path))
    assert manifest.run == ("./bot",)
    owners = {
        os.lstat(path).st_uid for path in (out, out / "kingmaker.toml", out / "notes", out / "notes/readme")
    }
    assert len(owners) == 1 and a_steps_own(owners.pop())
    assert (out / "notes/readme").stat().st_mode & 0o777 == 0o644  # readable by the build's own user


def test_the_build_runs_as_a_user_of_its_own_and_its_kept_folder_is_the_servers(tmp_path: Path) -> None:
    archive = archive_with(tmp_path / "a.tar", {"kingmaker.toml": MANIFEST})
    store = BuildStore(tmp_path / "builds")
    result = asyncio.run(build_archive(archive, "tar", store, SandboxPolicy(), temp_root=tmp_path))
    assert result.ok and result.folder is not None, result.reason
    built_by = int((result.folder / "built-by").read_text())
    assert a_steps_own(built_by)
    for entry in (result.folder, result.folder / "bot", result.folder / "built-by"):
        info = os.lstat(entry)
        assert (info.st_uid, info.st_gid) == (0, 0) and not info.st_mode & 0o222
