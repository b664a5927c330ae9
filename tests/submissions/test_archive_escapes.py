"""CVE-2025-4517 against the server: an archive (tar or zip), or a build's output, that holds the
link chain of ``tests/cve_2025_4517.py``. On this machine's Python (3.11.7) the chain passes the
``data`` extraction filter, so whatever unpacks it on the host writes where it points. Each
recipe goes the server's own way (``build_archive``, as a submission's build does; ``kingmaker
submit`` for one) into a real jail, and must leave the host as it was: no file written outside,
no hard link to a secret, no mode of a host folder changed, no ``.pth`` in a site-packages."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from cve_2025_4517 import Member, as_tar, as_zip, chain_to, hard_link_to, write_outside
from typer.testing import CliRunner

from kingmaker.ladder.bots import versions
from kingmaker.ladder.errors import NotFoundError
from kingmaker.server.background import BackgroundServer
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import BuildResult, build_archive
from kingmaker.server.building.submission_limits import BUILD_LIMITS, BuildLimits
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import MiB, SandboxPolicy, bubblewrap

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")

SMALL = BuildLimits(
    seconds=60, limits=dataclasses.replace(BUILD_LIMITS, processes=24, disk_bytes=16 * MiB), log_bytes=8192
)
TOKEN = "admin-token-that-no-author-may-read"
WRITERS = {"tar": as_tar, "zip": as_zip}


@dataclasses.dataclass
class Host:
    """A short folder (the chain needs the unpacking folder's path under ~120 characters) with a
    secret in a closed home, a folder outside, and a fake site-packages."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def secret(self) -> Path:
        return self.home / "admin-token"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def site_packages(self) -> Path:
        return self.root / "site-packages"

    def build(self, archive: Path, kind: str) -> BuildResult:
        store = BuildStore(self.root / "builds")
        return asyncio.run(build_archive(archive, kind, store, SandboxPolicy(), SMALL, self.root / "run"))

    def untouched(self, result: BuildResult) -> None:
        """The host as the fixture made it, and nothing of the secret in what the author sees."""
        assert os.stat(self.secret).st_mode & 0o777 == 0o600
        assert os.stat(self.secret).st_nlink == 1
        assert os.stat(self.home).st_mode & 0o777 == 0o700
        assert os.listdir(self.outside) == [] and os.listdir(self.site_packages) == []
        assert TOKEN not in result.log and TOKEN not in result.reason
        for folder in (self.root / "run", self.root / "builds"):  # (the author's links may name more)
            assert str(folder) not in result.reason  # no server folder in what the author is told
        if result.folder is not None:
            for parent, _folders, files in os.walk(result.folder):
                for name in files:
                    path = os.path.join(parent, name)
                    if not os.path.islink(path):
                        assert TOKEN not in Path(path).read_text(errors="replace")


@pytest.fixture
def host() -> Iterator[Host]:
    root = Path(tempfile.mkdtemp(prefix="km-", dir="/tmp"))
    found = Host(root)
    found.home.mkdir(mode=0o700)
    found.secret.write_text(TOKEN)
    found.secret.chmod(0o600)
    for folder in (found.outside, found.site_packages, root / "run"):
        folder.mkdir()
    try:
        yield found
    finally:
        subprocess_free_remove(root)


def subprocess_free_remove(root: Path) -> None:
    for parent, folders, _files in os.walk(root):
        for name in folders:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_chain_in_an_archive_writes_no_file_outside_its_folder(host: Host, kind: str) -> None:
    archive = WRITERS[kind](write_outside(host.outside, "marker", "written"), host.root / f"a.{kind}")
    result = host.build(archive, kind)
    assert not (host.outside / "marker").exists()
    host.untouched(result)


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_chain_in_an_archive_writes_no_pth_into_site_packages(host: Host, kind: str) -> None:
    code = "import os; os.system('touch /tmp/owned')\n"
    archive = WRITERS[kind](write_outside(host.site_packages, "evil.pth", code), host.root / f"p.{kind}")
    result = host.build(archive, kind)
    assert not (host.site_packages / "evil.pth").exists()
    host.untouched(result)


@pytest.mark.parametrize("kind", ["tar", "zip"])
def test_a_chain_in_an_archive_never_links_or_opens_a_secret(host: Host, kind: str) -> None:
    """A tar makes ``tok`` a hard link to the secret; a zip (no hard links) leaves ``escape``, a
    link to the secret's closed folder, which a host that opens the folder to the build's user
    (chmod through the link) would open to all."""
    archive = WRITERS[kind](hard_link_to(host.secret), host.root / f"h.{kind}")
    result = host.build(archive, kind)
    host.untouched(result)


def test_a_chain_a_build_leaves_in_its_output_is_not_followed_when_it_is_kept(host: Host) -> None:
    """The build writes the chain into its own folder, ``escape`` pointing at the secret's closed
    folder: keeping the output must not follow it (a host that unpacks the output through the
    filter, then makes it read-only, chmods the home through it). The link back up is made short
    enough for the chain to fit under PATH_MAX in the jail's ``/bot`` (so the build's own tar
    of its folder works), and long enough to pass PATH_MAX in the store's longer folder."""
    script = "\n".join(_shell(member) for member in chain_to(host.home, back=110))
    manifest = 'run = "./bot"\nbuild = "sh chain.sh; printf \'#!/bin/sh\\n\' > bot; chmod +x bot"\n'
    files = [Member("chain.sh", "file", script + "\n"), Member("kingmaker.toml", "file", manifest)]
    result = host.build(as_tar(files, host.root / "o.tar"), "tar")
    host.untouched(result)
    if result.folder is not None:  # kept: as links, never followed
        assert os.path.islink(result.folder / "escape")


def _shell(member: Member) -> str:
    if member.kind == "dir":
        return f"mkdir -p {shlex.quote(member.name)}"
    return f"ln -s {shlex.quote(member.target)} {shlex.quote(member.name)}"


def test_kingmaker_submit_of_a_chain_hard_linking_the_admin_token_leaves_it_closed(
    server: BackgroundServer, kingmaker_home: Path, tmp_path: Path
) -> None:
    """The issue's recipe as an author runs it: a tar whose ``tok`` is a hard link to the
    server's ``HOME/admin-token``, sent by ``kingmaker submit``; its build prints ``tok``."""
    token = kingmaker_home / "admin-token"
    before = token.stat()
    secret = token.read_text()
    archive = as_tar(hard_link_to(token), tmp_path / "evil.tar")
    result = CliRunner().invoke(
        app, ["submit", str(archive), "--bot", "evil", "-g", "kingdoms", "--server", server.address]
    )
    said = result.stdout + result.stderr
    assert "evil" in said  # it was taken and went its way (refused or failed, not played)
    after = token.stat()
    assert (after.st_mode, after.st_nlink, after.st_uid) == (before.st_mode, before.st_nlink, before.st_uid)
    assert secret not in said
    with contextlib.suppress(NotFoundError):  # (refused before anything was stored: no version)
        record = versions.get_version(server.server.db, "evil")
        assert secret not in record.status_reason and secret not in record.build_log
