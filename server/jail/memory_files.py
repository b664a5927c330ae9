"""Files with no path, for what a jailed process writes and the server reads."""

from __future__ import annotations

import fcntl
import os
from typing import IO


def memory_file(name: str) -> IO[bytes]:
    """A file with no path (``memfd_create``), for what a jailed process writes that the server
    reads (its stderr, a step's answer): a host file's path would show in the jail's
    ``/proc/self/fd``, this one shows as ``/memfd:NAME``. In memory, charged to the writer's
    cgroup; RLIMIT_FSIZE bounds it as it bounds a file. Append-only: a bot's processes share
    its offset, which the kernel does not lock for a memfd, so two lines printed at once could
    land at one place, one over the other; an appended write goes whole to the end."""
    descriptor = os.memfd_create(name, os.MFD_CLOEXEC)
    fcntl.fcntl(descriptor, fcntl.F_SETFL, fcntl.fcntl(descriptor, fcntl.F_GETFL) | os.O_APPEND)
    return os.fdopen(descriptor, "w+b")
