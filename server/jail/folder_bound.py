"""What a folder a stranger filled may hold, counted as what its files can become.

A sparse file occupies nothing until something reads it: ``truncate -s 400M`` is 0 blocks in
the jail's tmpfs, and 400 MiB of zeros in any copy that does not keep its holes. So a folder's
size is its apparent size (each file's length, each link's target), never the blocks it holds
now; and its entries are counted too, since every copy of the folder creates each of them again.
``FolderCount`` counts as a folder is walked and refuses at the first entry past a bound.
"""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1024 * 1024


class FolderTooBig(ValueError):
    """A folder past its bound (what it can become, or its entries); one line."""


@dataclass(frozen=True)
class FolderBound:
    bytes: int
    """The files' lengths and links' targets added up (0: no bound)."""
    files: int
    """Files, folders and links (0: no bound)."""


@dataclass
class FolderCount:
    bound: FolderBound
    bytes: int = 0
    files: int = 0

    def add(self, apparent_bytes: int) -> None:
        """Count one entry of ``apparent_bytes`` (a file's length, a link's target, 0 for a folder)."""
        self.files += 1
        self.bytes += apparent_bytes
        limit = self.bound
        if limit.files and self.files > limit.files:
            raise FolderTooBig(f"more than {limit.files} files, folders and links (the bound)")
        if limit.bytes and self.bytes > limit.bytes:
            raise FolderTooBig(
                f"files adding up to more than {limit.bytes / MiB:g} MiB (the bound), each counted "
                "at its full length, a sparse file's holes too"
            )
