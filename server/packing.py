"""Packing a bot's folder into a gzipped tar, as ``kingmaker submit`` sends it.

What ``.gitignore`` and ``.kingmakerignore`` at the folder's root list is left out (git's rules,
through ``pathspec``), and so is ``.git`` itself: a submission is the bot, not its history or its
build products. Symbolic links are packed as links (the server refuses those that leave the
folder). Owners are not packed; modes and times are (``make`` compares times).
"""

from __future__ import annotations

import os
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pathspec

IGNORE_FILES = (".gitignore", ".kingmakerignore")
ALWAYS_IGNORED = (".git/",)

ARCHIVE_SUFFIXES = {".tar.gz": "tar.gz", ".tgz": "tar.gz", ".tar": "tar", ".zip": "zip"}
"""The archives ``submit`` sends as they are, by file name."""


def archive_format(path: Path) -> str | None:
    """ "tar.gz", "tar" or "zip" for an archive's file name; None for anything else."""
    name = path.name.lower()
    return next((kind for suffix, kind in ARCHIVE_SUFFIXES.items() if name.endswith(suffix)), None)


def ignore_rules(folder: Path) -> pathspec.GitIgnoreSpec:
    """The folder's ignore rules: its root ``.gitignore`` and ``.kingmakerignore``, and ``.git``."""
    lines: list[str] = list(ALWAYS_IGNORED)
    for name in IGNORE_FILES:
        rules = folder / name
        if rules.is_file():
            lines += rules.read_text(errors="replace").splitlines()
    return pathspec.GitIgnoreSpec.from_lines(lines)


def packed_paths(folder: Path) -> Iterator[str]:
    """The relative paths to pack, sorted, folders before what they hold; an ignored folder's
    contents are not even listed."""
    rules = ignore_rules(folder)
    for parent, folders, files in os.walk(folder):
        relative = os.path.relpath(parent, folder)
        prefix = "" if relative == "." else relative + "/"
        kept = []
        for name in sorted(folders):
            path = prefix + name
            if os.path.islink(os.path.join(parent, name)):
                files.append(name)  # a link to a folder is packed as a link, not followed
            elif not rules.match_file(path + "/"):
                kept.append(name)
                yield path
        folders[:] = kept
        for name in sorted(files):
            if not rules.match_file(prefix + name):
                yield prefix + name


def pack_folder(folder: Path, output: BinaryIO) -> int:
    """Write ``folder`` as a gzipped tar to ``output``; how many entries it holds."""
    count = 0
    with tarfile.open(fileobj=output, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for path in packed_paths(folder):
            archive.add(folder / path, arcname=path, recursive=False, filter=_anonymous)
            count += 1
    return count


def _anonymous(member: tarfile.TarInfo) -> tarfile.TarInfo:
    member.uid = member.gid = 0
    member.uname = member.gname = ""
    return member
