"""Retention's files: a pruned version's archive and built folder leave the server's stores, a
kept version's stay, and a link a stranger's build left is never followed out of the store."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.ladder.bots import versions
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server.building.build_store import BlobStore, BuildStore
from kingmaker.server.building.retention import Retention, folder_bytes

GAME = "kingdoms"


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(f"sqlite:///{tmp_path / 'ladder.db'}")
    yield database
    database.close()


def digest(text: str) -> str:
    return (text * 64)[:64]


def built_folder(store: BuildStore, name: str, outside: Path) -> str:
    """A built folder as the store keeps one (read-only), holding links a build could leave: to
    a folder of the host and to a file there."""
    build_hash = digest(name)
    folder = store.path(build_hash)
    (folder / "sub").mkdir(parents=True)
    (folder / "bot").write_text("#!/bin/sh\n")
    (folder / "sub" / "out").symlink_to(outside)
    (folder / "secret-link").symlink_to(outside / "secret")
    for path in (folder / "sub", folder):
        path.chmod(0o555)
    return build_hash


def test_pruned_files_leave_the_stores_kept_ones_stay_and_no_link_is_followed(
    db: Database, tmp_path: Path
) -> None:
    blobs, builds = BlobStore(tmp_path / "blobs"), BuildStore(tmp_path / "builds")
    blobs.root.mkdir()
    outside = tmp_path / "host-folder"
    outside.mkdir()
    (outside / "secret").write_text("the host's")
    outside.chmod(0o500)
    for number in range(1, 5):
        archive = digest(f"a{number}")
        blobs.path(archive).write_bytes(b"archive")
        build_hash = built_folder(builds, f"b{number}", outside)
        record = versions.start_submission(db, "mine", [GAME], archive, archive_bytes=7)
        size = folder_bytes(builds.path(build_hash))
        versions.mark_built(db, "mine", record.number, build_hash, ["./bot"], "grpc", {}, "", size)
        versions.activate(db, "mine", record.number)

    pruned = asyncio.run(Retention(db, blobs, builds, keep=1).prune(bot="mine"))

    assert [number for _, number, _ in pruned.versions] == [1, 2]
    for number, kept in ((1, False), (2, False), (3, True), (4, True)):
        assert blobs.path(digest(f"a{number}")).exists() is kept
        assert builds.path(digest(f"b{number}")).is_dir() is kept
    assert (outside / "secret").read_text() == "the host's"
    assert stat.S_IMODE(os.stat(outside).st_mode) == 0o500  # never chmod-ed through a link
    assert [record.number for record in versions.list_versions(db, "mine") if record.pruned] == [2, 1]
