"""What unpacking a submission in the jail costs: ``unpack_in_jail`` (bubblewrap, a user of its own
under root, the archive on stdin, the manifest read there) against the same check and unpacking
done on the host, as the server did before issue 32, in turn.

    python bench/jailed_unpack.py            # 9 runs of each
    python bench/jailed_unpack.py --runs 3

Two archives: a small Python bot (3 files) and a bigger one (2,000 files of 4 KiB, 8 MiB), both
gzipped tars as ``kingmaker submit`` sends them. Paid once per submission, before its build.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import asyncio
import io
import shutil
import tarfile
import tempfile
import time
from pathlib import Path

from table import Row, alternate, print_rows

from kingmaker.server.building.jailed_unpack import unpack_in_jail
from kingmaker.server.building.manifest import read_manifest
from kingmaker.server.building.submission_archive import check_archive, unpack
from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.jail.sandbox import SandboxPolicy, bubblewrap

LIMITS = ArchiveLimits()


def archive_of(path: Path, files: int, size: int) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for number in range(files):
            data = os.urandom(size // 2).hex().encode()[:size]
            info = tarfile.TarInfo(f"lib/part{number // 100}/file{number}.py")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        bot = b"print('hello')\n"
        info = tarfile.TarInfo("bot.py")
        info.size = len(bot)
        archive.addfile(info, io.BytesIO(bot))
    return path


def jailed_ms(archive: Path, scratch: Path) -> float:
    out = Path(tempfile.mkdtemp(dir=scratch))
    started = time.perf_counter()
    asyncio.run(unpack_in_jail(archive, "tar.gz", LIMITS, out, SandboxPolicy(), scratch))
    took = time.perf_counter() - started
    shutil.rmtree(out)
    return took * 1000


def on_the_host_ms(archive: Path, scratch: Path) -> float:
    out = Path(tempfile.mkdtemp(dir=scratch))
    started = time.perf_counter()
    check_archive(archive, "tar.gz", LIMITS)
    unpack(archive, "tar.gz", out, LIMITS)
    read_manifest(out)
    took = time.perf_counter() - started
    shutil.rmtree(out)
    return took * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    if not bubblewrap().usable:
        raise SystemExit(f"no jail to measure here: {bubblewrap().reason}")
    scratch = Path(tempfile.mkdtemp(prefix="kingmaker-bench-"))
    os.chmod(scratch, 0o755)
    try:
        archives = {
            "3 files": archive_of(scratch / "small.tar.gz", 2, 64),
            "2,000 files, 8 MiB": archive_of(scratch / "big.tar.gz", 2000, 4096),
        }
        rows = []
        for what, archive in archives.items():
            ours, reference = alternate(
                lambda archive=archive: jailed_ms(archive, scratch),
                lambda archive=archive: on_the_host_ms(archive, scratch),
                args.runs,
            )
            rows.append(
                Row("unpack", f"check + unpack + manifest, jailed: {what}", "ms", ours, "host", reference)
            )
        print_rows(rows, "A submission unpacked in the jail against on the host")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
