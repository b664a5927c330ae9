"""Toolchain caches a language's builds start from, prepared once by the server and shared read-only.

A kit's first build would otherwise compile its whole gRPC library from source: the Go kit
builds all of grpc-go (minutes of CPU), the Rust kit serde and rand, the C++ kit the code protoc
generates from the contract (the same in every bot). The server prepares each
language's cache once, by building that language's own starter kit in the jail as any build
runs (``builds.prepare_cache``), and keeps from the built folder only the entries of ``SEEDS``:
made read-only and the server's, renamed into ``ROOT/LANGUAGE-KEY`` (KEY: the kit's hash, so a
new kit or contract prepares anew). Every later build of that language sees it read-only at
``TOOLCHAIN_CACHE_FOLDER`` (a read-only bind: no process in the jail can write there, whatever its user),
and the jail's first step copies each entry into the bot's folder where the submission has none
(``archive_step.seed``). The build writes only to its own copy, which goes with its jail: one
author's build can never change what another's starts from.

Only content-addressed caches are seeds: Go's build cache keys each compiled package by the hash
of its sources, flags and toolchain; cargo keeps a registry crate's build under its package id,
version, features and compiler (the kit's own crate is removed: ``KIT_OWN``); ccache keys an
object by the hash of its source and the headers it reads, its flags and its compiler. Outputs a tool
judges fresh by their times (make's objects, javac's classes, protoc's files) are never seeds:
an author's changed source older than the seed would pass as built.

A preparation that fails (a missing toolchain, a full disk) is logged, said in each build's log,
and not tried again by this process: builds go on without the cache, only slower.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kingmaker.server.building.build_clock import BuildClock
from kingmaker.server.jail.no_follow import make_read_only, open_folders

log = logging.getLogger("kingmaker.server.building.toolchain_caches")

SEEDS: dict[str, tuple[str, ...]] = {"cpp": (".ccache",), "go": (".cache",), "rust": ("target",)}
"""Per language, the entries of its kit's built folder that later builds start from."""
KIT_NAME = "kingmaker-cache"
"""The name the prepared kit is written with (the Rust crate's name, so its artifacts can be told
from its dependencies')."""
KIT_OWN: dict[str, tuple[str, ...]] = {
    "rust": (
        "target/release/bot",
        "target/release/bot.d",
        "target/release/deps/bot-*",
        f"target/release/.fingerprint/{KIT_NAME}-*",
        "target/release/incremental",
    )
}
"""What the prepared kit built of itself, removed from its seed: an author's bot is built anew."""
KIT_STUBS: dict[str, dict[str, str | None]] = {
    "rust": {"src/main.rs": "fn main() {}\n", "src/games.rs": None},
}
"""Per language, files of the prepared kit replaced before it is built (None: removed), so that
the preparation compiles the libraries and not the kit's own code, which ``KIT_OWN`` throws away:
the Rust kit's crate (serde's derives for every game's types) cost more CPU than serde, serde_json
and rand together (about 24 CPU-s against 20 on two cores), so a server's first Rust build
compiled it twice. Cargo builds a crate's dependencies the same whatever its own code."""
ENVIRONMENT = "KINGMAKER_TOOLCHAIN_CACHES"
"""Names the folder of prepared caches in place of ``HOME/toolchain-caches`` (machines whose
servers, benches or tests share one), or ``off``: no cache is prepared or used."""


@dataclass(frozen=True)
class PreparedCache:
    """What a build of one language starts from: ``folder`` (None: nothing) and a line for its log."""

    folder: Path | None
    note: str


class ToolchainCaches:
    """The prepared caches of one folder; each language's prepared once per folder, one at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._locks: dict[str, asyncio.Lock] = {}
        self.failed: dict[str, str] = {}
        """Languages whose preparation failed in this process, and why: not tried again."""
        self.spent: dict[str, BuildClock] = {}
        """What each preparation this process made took (the server's log says it too)."""

    def prepared(self, language: str, key: str) -> Path | None:
        folder = self.root / f"{language}-{key[:16]}"
        return folder if folder.is_dir() else None

    def lock(self, language: str) -> asyncio.Lock:
        return self._locks.setdefault(language, asyncio.Lock())

    def keep(self, language: str, key: str, built: Path) -> Path:
        """Copy the seeds out of ``built`` (the prepared kit's built folder), without the kit's own
        artifacts, read-only, into place; its folder."""
        self.root.mkdir(mode=0o755, parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{language}-", dir=self.root))
        try:
            for entry in SEEDS[language]:
                if not os.path.lexists(built / entry):
                    raise FileNotFoundError(f"the kit's build left no {entry}")
                shutil.copytree(built / entry, staging / entry, symlinks=True)
            for pattern in KIT_OWN.get(language, ()):
                for own in staging.glob(pattern):
                    if own.is_dir() and not own.is_symlink():
                        shutil.rmtree(own)
                    else:
                        own.unlink()
            make_read_only(staging)
            target = self.root / f"{language}-{key[:16]}"
            try:
                os.replace(staging, target)
            except OSError:
                if not target.is_dir():  # (another process kept the same cache first: ours is theirs)
                    raise
            return target
        finally:
            if staging.exists():
                _remove(staging)


def caches_beside(store_root: Path) -> ToolchainCaches | None:
    """The prepared caches of the server whose built folders are in ``store_root`` (None: off)."""
    chosen = os.environ.get(ENVIRONMENT, "")
    if chosen == "off":
        return None
    root = Path(chosen) if chosen else store_root.parent / "toolchain-caches"
    return _CACHES.setdefault(root.resolve(), ToolchainCaches(root.resolve()))


_CACHES: dict[Path, ToolchainCaches] = {}


def _remove(folder: Path) -> None:
    open_folders(folder)
    shutil.rmtree(folder, ignore_errors=True)
