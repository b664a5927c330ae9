"""The build's output is copied through a tar in a pipe (``archive_step.copy_through_filter``):
the reader stops at the end-of-archive block, and the packer may still have the rest of its last
record to write. On a loaded machine the packer is late with it, and a reader that closed the pipe
at once left it a broken pipe: a sound build was refused ("the build left Broken pipe")."""

from __future__ import annotations

import tarfile
import time
from pathlib import Path

import pytest

from kingmaker.server.building import archive_step


@pytest.mark.parametrize("size", [8000, 18000, 28500])
def test_a_packer_late_with_its_last_record_still_copies_the_folder(
    size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # These sizes put the end-of-archive block in a record written before the last one.
    closing = tarfile._Stream.close  # type: ignore[attr-defined]

    def late_close(stream: tarfile._Stream) -> None:  # type: ignore[name-defined]
        if stream.mode == "w":
            time.sleep(0.3)  # the packer's thread kept from a CPU before its last write
        closing(stream)

    monkeypatch.setattr(tarfile._Stream, "close", late_close)  # type: ignore[attr-defined]
    folder, out = tmp_path / "built", tmp_path / "out"
    folder.mkdir()
    out.mkdir()
    (folder / "bot.bin").write_bytes(b"x" * size)
    archive_step.copy_through_filter(folder, out)
    assert (out / "bot.bin").read_bytes() == b"x" * size
