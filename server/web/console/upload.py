"""A submission from the browser: an archive, or a folder's files (``webkitdirectory``), turned
into the archive `kingmaker submit` would send and sent through the same Submit call (its
bounds, its checks, the build in the jail). The browser's bytes are bounded before they are
read, and a folder's file names are checked before anything is written."""

from __future__ import annotations

import hashlib
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from starlette.datastructures import UploadFile

from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.packing import archive_format, pack_folder
from kingmaker.v1 import admin_pb2

LIMITS = ArchiveLimits()
MAX_UPLOAD_BYTES = 2 * LIMITS.archive_bytes
"""A request's body may not be longer, checked before it is read (a folder arrives unpacked; the
archive made of it is then held to the server's own archive limit by Submit)."""
MAX_FILES = LIMITS.files
CHUNK_BYTES = LIMITS.chunk_bytes


class UploadRefused(ValueError):
    """What is wrong with the upload, in one line; nothing was sent."""


def submission(
    bot: str, games: list[str], ab: bool, archive: UploadFile | None, folder: list[UploadFile], staging: Path
) -> tuple[admin_pb2.SubmitHeader, Path]:
    """The Submit header and the archive file to send, made in ``staging``."""
    if archive is not None and archive.filename:
        name = PurePosixPath(archive.filename).name
        kind = archive_format(Path(name))
        if kind is None:
            raise UploadRefused(f"{name} is not an archive (.tar.gz, .tgz, .tar, .zip)")
        path = staging / f"upload.{kind}"
        _save(archive, path)
    elif folder:
        root = staging / "folder"
        root.mkdir()
        _save_folder(folder, root)
        games = games or _manifest_games(root)
        kind, path = "tar.gz", staging / "folder.tar.gz"
        with path.open("wb") as output:
            pack_folder(root, output)
    else:
        raise UploadRefused("choose an archive or a folder to upload")
    with path.open("rb") as handle:
        sha256 = hashlib.file_digest(handle, "sha256").hexdigest()
    header = admin_pb2.SubmitHeader(
        bot=bot, games=games, format=kind, size=path.stat().st_size, sha256=sha256, ab=ab
    )
    return header, path


def chunks(header: admin_pb2.SubmitHeader, archive: Path) -> Iterator[admin_pb2.SubmitChunk]:
    yield admin_pb2.SubmitChunk(header=header)
    with archive.open("rb") as handle:
        while data := handle.read(CHUNK_BYTES):
            yield admin_pb2.SubmitChunk(data=data)


def staging_folder() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="kingmaker-console-upload-")


def _save(upload: UploadFile, path: Path) -> None:
    upload.file.seek(0)
    with path.open("wb") as output:
        while data := upload.file.read(CHUNK_BYTES):
            output.write(data)


def _save_folder(files: list[UploadFile], root: Path) -> None:
    """Each file at its path inside the chosen folder (the browser sends "folder/sub/name")."""
    if len(files) > MAX_FILES:
        raise UploadRefused(f"the folder has more than {MAX_FILES:,} files")
    for upload in files:
        parts = PurePosixPath((upload.filename or "").replace("\\", "/")).parts
        relative = parts[1:] if len(parts) > 1 else parts  # without the chosen folder's own name
        if not relative or any(part in ("", ".", "..") or "\0" in part for part in relative):
            raise UploadRefused(
                f"a file name in the folder is not a plain relative path: {upload.filename!r}"
            )
        target = root.joinpath(*relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            raise UploadRefused(f"{PurePosixPath(*relative)} comes twice")
        _save(upload, target)


def _manifest_games(root: Path) -> list[str]:
    manifest = root / "kingmaker.toml"
    if not manifest.is_file():
        return []
    try:
        games = tomllib.loads(manifest.read_text(errors="replace")).get("games", [])
    except tomllib.TOMLDecodeError:
        return []  # the server's build says what is wrong with it
    return [str(game) for game in games] if isinstance(games, list) else []
