"""The bounds on a submission and its build, with their defaults, in one place.

Every number a submission is checked against lives here (the CLI's ``serve`` options, when they
come, set these fields). They are documented in docs/submissions.md, "Limits"."""

from __future__ import annotations

from dataclasses import dataclass, field

from kingmaker.server.jail.folder_bound import FolderBound
from kingmaker.server.jail.sandbox import GiB, Limits, MiB


@dataclass(frozen=True)
class ArchiveLimits:
    """What an archive may be: checked from its header and as it arrives, then from its members'
    headers, before anything of it is unpacked or stored."""

    archive_bytes: int = 64 * MiB
    """The archive as sent (a folder's node_modules or vendored wheels fit)."""
    chunk_bytes: int = 1 * MiB
    """One message of the stream (``SubmitChunk.data``)."""
    files: int = 20_000
    """Members (files, folders, links) in the archive."""
    unpacked_bytes: int = 512 * MiB
    """The members' sizes added up, as their headers give them: a bomb is refused unread."""
    path_chars: int = 512
    """The longest member path, in characters."""
    path_depth: int = 32
    """The most folders a member path goes down."""


BUILD_LIMITS = Limits(
    cpu_seconds=1200,
    memory_bytes=8 * GiB,
    processes=256,
    open_files=1024,
    file_bytes=512 * MiB,
    bot_memory_bytes=3 * GiB,
    disk_bytes=1 * GiB,
    cpu_weight=10,
)
"""A build's resource limits: compilers (javac, go, rustc) start many threads and reserve far more
address space than a playing bot, so more processes and address space; the whole build's memory
(its tmpfs folders included) is bounded by ``bot_memory_bytes``, and its folder by
``disk_bytes``. A tenth of a bot's CPU weight: builds run on what matches leave (a ladder keeps
>= 0.8 of its pace beside five builds: ``bench/builds_beside_ladder.py``), raised while they run
so that together they get a floor of the CPU (``build_clock.build_weight``)."""


@dataclass(frozen=True)
class BuildLimits:
    """How long a build may run, what it may use, and how much of its output is kept."""

    seconds: float = 600.0
    """CPU time of the whole build, its processes' together, from its command's start: a build
    waiting for a core on a busy server loses nothing of it (``build_clock``)."""
    wall_seconds: float = 3600.0
    """Wall-clock time of the whole build: stops one that waits on nothing, using no CPU."""
    limits: Limits = field(default_factory=lambda: BUILD_LIMITS)
    log_bytes: int = 64 * 1024
    """The end of the build's output kept as its log."""
    tmp_bytes: int = 512 * MiB
    """The build's private /tmp (compilers' temporary files; its HOME is there too)."""
    files: int = 50_000
    """Entries (files, folders, links) the built folder may hold: each is copied out of the jail,
    into the store and into each bot process's run folder, so many tiny files cost the host."""

    @property
    def kept(self) -> FolderBound:
        """What the built folder may be when kept: its apparent size (a sparse file counts as
        what it can become) within the build's disk quota, its entries within ``files``."""
        return FolderBound(self.limits.disk_bytes, self.files)


@dataclass(frozen=True)
class SubmissionLimits:
    archive: ArchiveLimits = field(default_factory=ArchiveLimits)
    build: BuildLimits = field(default_factory=BuildLimits)
    keep_versions: int = 3
    """Retention: versions of a bot that keep their files beside the active one and those still
    needed (the newest; ``ladder/storage/retention.py``). The others are pruned."""
