"""The build store when two writers keep the same folder at once: two matches on one Ray node,
or two nodes on one machine, both receive a built folder and unpack it into the same cache."""

from __future__ import annotations

import tarfile
import threading
from pathlib import Path

import pytest

from kingmaker.server.building import build_store
from kingmaker.server.building.build_store import BuildStore


def built_folder(store: BuildStore, tmp_path: Path) -> str:
    source = tmp_path / "source"
    source.mkdir()
    (source / "bot.py").write_text("print('hello')\n")
    (source / "helpers.py").write_text("def choose(count):\n    return 0\n")
    archive = tmp_path / "built.tar"
    with tarfile.open(archive, "w") as tar:
        for path in sorted(source.iterdir()):
            tar.add(path, arcname=path.name)
    return store.add_tar(archive)


def test_two_writers_keeping_one_folder_at_once_both_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = BuildStore(tmp_path / "server")
    build_hash = built_folder(server, tmp_path)
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
