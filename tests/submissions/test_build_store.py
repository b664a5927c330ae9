"""The build store when two writers keep the same folder at once: two matches on one Ray node,
or two nodes on one machine, both receive a built folder and unpack it into the same cache."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.server.building import build_store
from kingmaker.server.building.build_store import BuildOutputRefused, BuildStore
from kingmaker.server.jail.run_folder import make_run_folder
from kingmaker.server.jail.sandbox import bubblewrap

needs_jail = pytest.mark.skipif(not bubblewrap().usable, reason="a packed folder is unpacked in the jail")


def built_folder(store: BuildStore) -> str:
    """A folder kept as a build's step leaves it (filled in the store's incoming folder)."""
    incoming = store.incoming()
    (incoming / "bot.py").write_text("print('hello')\n")
    (incoming / "helpers.py").write_text("def choose(count):\n    return 0\n")
    return store.keep(incoming)


@pytest.fixture(params=["in the store", "in the run folder"])
def near(request: pytest.FixtureRequest) -> Iterator[Path | None]:
    """Where a step's folder is filled: the store's own folder, or (as a server builds) its run
    folder, on /dev/shm where that is a tmpfs: another file system, so ``keep`` copies it in."""
    if request.param == "in the store":
        yield None
        return
    folder = make_run_folder()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def closed_secret(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "admin-token").write_text("secret")
    (home / "admin-token").chmod(0o600)
    return home / "admin-token"


def test_a_second_name_of_a_host_file_in_a_kept_folder_is_refused_and_never_opened(
    tmp_path: Path, near: Path | None
) -> None:
    secret = closed_secret(tmp_path if near is None else near)  # (a hard link stays on its fs)
    store = BuildStore(tmp_path / "store")
    incoming = store.incoming(near)
    os.link(secret, incoming / "tok")
    with pytest.raises(BuildOutputRefused, match="'tok' is a hard link"):
        store.keep(incoming)
    assert secret.stat().st_mode & 0o777 == 0o600 and secret.stat().st_nlink == 1
    assert os.listdir(store.root) == [] and not incoming.exists()


def test_a_link_in_a_kept_folder_is_kept_as_a_link_and_nothing_is_done_through_it(
    tmp_path: Path, near: Path | None
) -> None:
    secret = closed_secret(tmp_path)
    store = BuildStore(tmp_path / "store")
    incoming = store.incoming(near)
    os.symlink(secret.parent, incoming / "home")
    os.symlink(secret, incoming / "tok")
    (incoming / "bot").write_text("#!/bin/sh\n")
    kept = store.path(store.keep(incoming))
    assert os.readlink(kept / "home") == str(secret.parent) and os.readlink(kept / "tok") == str(secret)
    assert secret.parent.stat().st_mode & 0o777 == 0o700 and secret.stat().st_mode & 0o777 == 0o600
    assert (kept / "bot").stat().st_mode & 0o777 == 0o444 and kept.stat().st_mode & 0o777 == 0o555
    assert kept.stat().st_uid == os.getuid() and not incoming.exists()
    assert sorted(os.listdir(store.root)) == [kept.name], "nothing half-kept beside it"


@needs_jail
def test_two_writers_keeping_one_folder_at_once_both_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = BuildStore(tmp_path / "server")
    build_hash = built_folder(server)
    packed = server.pack(build_hash)
    node = BuildStore(tmp_path / "node")

    # Hold both writers after they found no folder under that hash and before either renames
    # its copy into place: the interleaving two matches sending one build reach by chance.
    both_ready = threading.Barrier(2, timeout=60)
    real_read_only = build_store._read_only

    def read_only_then_wait(folder: Path) -> None:
        real_read_only(folder)
        both_ready.wait()

    monkeypatch.setattr(build_store, "_read_only", read_only_then_wait)
    outcomes: list[object] = []

    def keep() -> None:
        try:
            outcomes.append(node.add_packed(build_hash, packed))
        except Exception as error:  # the outcome under test: no writer may fail
            outcomes.append(error)

    writers = [threading.Thread(target=keep) for _ in range(2)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)

    assert outcomes == [node.path(build_hash)] * 2
    assert (node.path(build_hash) / "helpers.py").read_text() == "def choose(count):\n    return 0\n"
    assert build_store.tree_hash(node.path(build_hash)) == build_hash
    # Nothing half-kept is left beside it.
    assert [path.name for path in node.root.iterdir()] == [build_hash]
