"""Archives a submission may be, and every way one is refused: one line, nothing unpacked."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from kingmaker.server.building.submission_archive import ArchiveRefused, check_archive, sniff_format, unpack
from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.packing import archive_format, pack_folder, packed_paths

LIMITS = ArchiveLimits(archive_bytes=1 << 20, files=100, unpacked_bytes=1 << 20)


def tar_with(path: Path, members: list[tuple[tarfile.TarInfo, bytes]], compress: bool = True) -> Path:
    with tarfile.open(path, "w:gz" if compress else "w") as archive:
        for member, data in members:
            member.size = len(data) if member.isreg() else 0
            archive.addfile(member, io.BytesIO(data) if member.isreg() else None)
    return path


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    return info


def refused(path: Path, kind: str = "tar.gz", limits: ArchiveLimits = LIMITS) -> str:
    with pytest.raises(ArchiveRefused) as caught:
        check_archive(path, kind, limits)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_folder_packs_without_what_its_ignore_files_list_and_unpacks_the_same(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    (bot / "build").mkdir(parents=True)
    (bot / ".git").mkdir()
    (bot / ".git" / "HEAD").write_text("ref")
    (bot / "build" / "bot.o").write_text("object")
    (bot / "bot.py").write_text("import helpers\n")
    (bot / "helpers.py").write_text("X = 1\n")
    (bot / "secret.env").write_text("TOKEN=1")
    (bot / "run.sh").write_text("#!/bin/sh\n")
    (bot / "run.sh").chmod(0o755)
    (bot / ".gitignore").write_text("build/\n")
    (bot / ".kingmakerignore").write_text("*.env\n")
    assert list(packed_paths(bot)) == [".gitignore", ".kingmakerignore", "bot.py", "helpers.py", "run.sh"]
    archive = tmp_path / "bot.tar.gz"
    with archive.open("wb") as output:
        assert pack_folder(bot, output) == 5
    assert sniff_format(archive) == "tar.gz"
    assert check_archive(archive, "tar.gz", LIMITS) == 5
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    unpack(archive, "tar.gz", unpacked, LIMITS)
    assert sorted(os.listdir(unpacked)) == [
        ".gitignore",
        ".kingmakerignore",
        "bot.py",
        "helpers.py",
        "run.sh",
    ]
    assert (unpacked / "helpers.py").read_text() == "X = 1\n"
    assert os.access(unpacked / "run.sh", os.X_OK)


def test_archive_names_give_their_format() -> None:
    assert [archive_format(Path(name)) for name in ("a.tar.gz", "b.TGZ", "c.tar", "d.zip", "e.rar")] == [
        "tar.gz", "tar.gz", "tar", "zip", None,
    ]  # fmt: skip


def test_a_zip_unpacks_through_the_same_filter(tmp_path: Path) -> None:
    path = tmp_path / "bot.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("bot.py", "print(1)\n")
        archive.writestr("lib/helpers.py", "X = 2\n")
    assert sniff_format(path) == "zip"
    assert check_archive(path, "zip", LIMITS) == 2
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    unpack(path, "zip", unpacked, LIMITS)
    assert (unpacked / "lib" / "helpers.py").read_text() == "X = 2\n"


def test_a_zips_link_inside_its_folder_passes_its_check_and_one_out_does_not(tmp_path: Path) -> None:
    for target, passes in (("lib/helpers.py", True), ("../../etc/passwd", False)):
        path = tmp_path / "links.zip"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("lib/helpers.py", "X = 2\n")
            link = zipfile.ZipInfo("helpers.py")
            link.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(link, target)
        if passes:
            assert check_archive(path, "zip", LIMITS) == 2
        else:
            assert "'helpers.py' is a link that leaves the folder" in refused(path, "zip")


@pytest.mark.parametrize(
    ("members", "said"),
    [
        ([member("../escape.py")], "leaves the folder"),
        ([member("ok/../../escape.py")], "leaves the folder"),
        ([member("/etc/cron.d/evil")], "absolute path"),
        ([member("out", tarfile.SYMTYPE, "../../etc")], "link that leaves the folder"),
        ([member("abs", tarfile.SYMTYPE, "/etc/shadow")], "link to an absolute path"),
        ([member("hard", tarfile.LNKTYPE, "../outside")], "leaves the folder"),
        ([member("null", tarfile.CHRTYPE)], "device or other special file"),
        ([member("fifo", tarfile.FIFOTYPE)], "device or other special file"),
        ([member("/".join(["d"] * 40) + "/f")], "folders deep"),
        ([member("x" * 600)], "longer than 512 characters"),
    ],
)
def test_hostile_tar_members_are_refused_in_one_line(
    tmp_path: Path, members: list[tarfile.TarInfo], said: str
) -> None:
    path = tar_with(tmp_path / "bad.tar.gz", [(m, b"x") for m in members])
    assert said in refused(path)


def test_a_symlink_inside_the_folder_is_kept(tmp_path: Path) -> None:
    path = tar_with(
        tmp_path / "ok.tar.gz",
        [
            (member("lib", tarfile.DIRTYPE), b""),
            (member("lib/a.py"), b"A"),
            (member("a.py", tarfile.SYMTYPE, "lib/a.py"), b""),
        ],
    )
    assert check_archive(path, "tar.gz", LIMITS) == 3
    (tmp_path / "out").mkdir()
    unpack(path, "tar.gz", tmp_path / "out", LIMITS)
    assert (tmp_path / "out" / "a.py").read_text() == "A"


def test_a_gzip_bomb_is_refused_from_its_header_without_inflating(tmp_path: Path) -> None:
    """One member that claims 4 GiB: its gzip is a few MiB of zeros at most, refused at its header."""
    path = tmp_path / "bomb.tar.gz"
    with gzip.open(path, "wb", compresslevel=9) as raw:
        header = member("zeros")
        header.size = 4 << 30
        raw.write(header.tobuf(tarfile.PAX_FORMAT))
        raw.write(bytes(1 << 20))  # the start of its zeros; the rest need not exist to be refused
    assert path.stat().st_size < 64 * 1024
    assert "unpacks to more than 1 MiB" in refused(path)


def test_a_zip_bomb_is_refused_from_its_directory(tmp_path: Path) -> None:
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for index in range(3):
            archive.writestr(f"zeros{index}", bytes(8 << 20))
    assert path.stat().st_size < 200 * 1024
    assert "unpacks to more than 1 MiB" in refused(path, "zip")


def test_a_million_tiny_files_are_refused_at_the_limit(tmp_path: Path) -> None:
    """Header-only members (zero bytes each): refused when the count passes the limit, long
    before a million are read."""
    path = tmp_path / "many.tar"
    with tarfile.open(path, "w") as archive:
        for index in range(1_000):  # enough to pass the limit of 100; a million would be the same
            archive.addfile(member(f"f{index}"))
    assert "more than 100 files" in refused(path, "tar")


def test_a_huge_extended_header_cannot_fill_memory(tmp_path: Path) -> None:
    path = tmp_path / "pax.tar.gz"
    with gzip.open(path, "wb") as raw:
        header = member("pax", tarfile.XHDTYPE)
        header.size = 3 << 30
        raw.write(header.tobuf(tarfile.USTAR_FORMAT))
        raw.write(bytes(4 << 20))
    assert "unpacks to more than" in refused(path)


@pytest.mark.parametrize(
    ("kind", "data"), [("tar.gz", b"not gzip at all"), ("zip", b"PK\x03\x04junk"), ("tar", b"\x01" * 1024)]
)
def test_garbage_is_refused_in_one_line(tmp_path: Path, kind: str, data: bytes) -> None:
    path = tmp_path / "garbage"
    path.write_bytes(data)
    refused(path, kind)
