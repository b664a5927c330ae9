"""Submissions the server refuses, through a real server: one line (INVALID_ARGUMENT) each, and
nothing stored (no blob, no bot, no version)."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from kingmaker.ladder.bots import bots
from kingmaker.ladder.errors import NotFoundError
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.building.submission_limits import ArchiveLimits, SubmissionLimits
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

LIMITS = SubmissionLimits(
    archive=ArchiveLimits(archive_bytes=256 * 1024, chunk_bytes=32 * 1024, files=50, unpacked_bytes=1 << 20)
)


@pytest.fixture
def small_server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    running = BackgroundServer(ServerConfig(address="127.0.0.1:0", submission_limits=LIMITS))
    try:
        yield running
    finally:
        running.stop()


def tar_gz(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member, data in members:
            member.size = len(data) if member.isreg() else 0
            archive.addfile(member, io.BytesIO(data) if member.isreg() else None)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    return info


def submit(
    server: BackgroundServer,
    data: bytes,
    size: int | None = None,
    chunk: int = 16 * 1024,
    kind: str = "tar.gz",
) -> grpc.RpcError:
    header = admin_pb2.SubmitHeader(
        bot="hostile", games=["kingdoms"], format=kind, size=len(data) if size is None else size,
        sha256=hashlib.sha256(data).hexdigest(),
    )  # fmt: skip

    def chunks() -> Iterator[admin_pb2.SubmitChunk]:
        yield admin_pb2.SubmitChunk(header=header)
        for start in range(0, len(data), chunk):
            yield admin_pb2.SubmitChunk(data=data[start : start + chunk])

    with grpc.insecure_channel(server.address) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Submit(chunks(), metadata=(("authorization", f"Bearer {server.admin_token}"),), timeout=60)
    return caught.value


def assert_nothing_stored(server: BackgroundServer) -> None:
    with pytest.raises(NotFoundError):
        bots.get_bot(server.server.db, "hostile")
    blobs = server.server.blobs.root
    assert not blobs.exists() or os.listdir(blobs) == []
    builds = server.server.builds.root
    assert not builds.exists() or os.listdir(builds) == []


def bomb() -> bytes:
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb") as stream:
        header = member("zeros")
        header.size = 4 << 30
        stream.write(header.tobuf(tarfile.PAX_FORMAT))
        stream.write(bytes(2 << 20))
    return raw.getvalue()


def many_files() -> bytes:
    """Header-only members, far more than the limit (a million would be refused the same way)."""
    return tar_gz([(member(f"f{index}"), b"") for index in range(5_000)])


@pytest.mark.parametrize(
    ("archive", "said"),
    [
        (lambda: tar_gz([(member("../escape.py"), b"x")]), "'../escape.py' leaves the folder"),
        (lambda: tar_gz([(member("/etc/cron.d/x"), b"x")]), "is an absolute path"),
        (
            lambda: tar_gz([(member("up", tarfile.SYMTYPE, "../../../etc"), b"")]),
            "link that leaves the folder",
        ),
        (lambda: tar_gz([(member("dev", tarfile.CHRTYPE), b"")]), "device or other special file"),
        (bomb, "unpacks to more than 1 MiB"),
        (many_files, "holds more than 50 files"),
    ],
    ids=["dotdot", "absolute", "symlink-out", "device", "gzip-bomb", "many-files"],
)
def test_a_hostile_archive_is_refused_in_one_line_and_nothing_is_stored(
    small_server: BackgroundServer, archive: object, said: str
) -> None:
    assert callable(archive)
    error = submit(small_server, archive())
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert said in error.details() and "\n" not in error.details()
    assert_nothing_stored(small_server)


def test_an_archive_over_the_size_limit_is_refused_from_its_header(small_server: BackgroundServer) -> None:
    error = submit(small_server, os.urandom(1024), size=300 * 1024)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == "the archive is 0.3 MiB, over the server's limit of 0.25 MiB"
    assert_nothing_stored(small_server)


def test_an_archive_longer_than_its_header_or_in_too_big_chunks_is_refused(
    small_server: BackgroundServer,
) -> None:
    data = tar_gz([(member("bot.py"), os.urandom(100 * 1024))])
    error = submit(small_server, data + b"more", size=len(data))
    assert error.details() == f"the archive is longer than its header said ({len(data):,} bytes)"
    error = submit(small_server, data, chunk=64 * 1024)
    assert error.details() == "a chunk is over 32,768 bytes"
    assert_nothing_stored(small_server)


def zip_with_link(target: str) -> bytes:
    """A zip holding a bot and a link (a zip keeps a link's target as its member's content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", "print('hi')\n")
        link = zipfile.ZipInfo("escape")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, target)
    return buffer.getvalue()


@pytest.mark.parametrize("target", ["../../../etc", "/etc/passwd"])
def test_a_zip_with_a_link_out_is_refused_before_anything_is_stored(
    small_server: BackgroundServer, target: str
) -> None:
    error = submit(small_server, zip_with_link(target), kind="zip")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'escape' is a link" in error.details() and "\n" not in error.details()
    assert_nothing_stored(small_server)
