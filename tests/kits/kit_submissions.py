"""Each kit submitted once per test session, the author's way, and its build shared.

`kingmaker init`, then `kingmaker submit` of the folder as it is (TypeScript's packages fetched
first, as its README says): the server builds it in its jail, offline, from the kit's manifest,
and validates it. test_kits_submit.py checks that submission; test_kits_play.py plays the folder
the server built, so each kit is built once a run, by the server, as an author's would be (a
C++ or Rust build is minutes of CPU on two cores: building each kit a second time outside the
jail, as the play tests once did, was a tenth of the suite).

A kit's tests all run on one worker under pytest-xdist (its ``xdist_group``), so the session's
submission is made by the first of them and found by the rest."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from kits_support import fetch_packages, init_kit
from typer.testing import CliRunner

from kingmaker.kits.languages import LANGUAGES, check
from kingmaker.kits.manifest import Manifest, read_manifest
from kingmaker.ladder.bots import bots, versions
from kingmaker.ladder.bots.versions import VersionRecord
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.building.toolchain_caches import ENVIRONMENT
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap


def kit_group(lang: str) -> pytest.MarkDecorator:
    """The xdist group of a kit's tests: one worker builds it and plays it."""
    return pytest.mark.xdist_group(f"kit-{lang}")


KITS = [pytest.param(kit.name, marks=kit_group(kit.name)) for kit in LANGUAGES]


@dataclass(frozen=True)
class Submission:
    """A kit as the server took it: what `submit` printed, the version's record, whether it was
    active on the bot, and the folder the server built (its manifest beside it)."""

    output: str
    exit_code: int
    record: VersionRecord | None
    active_version: int
    built: Path | None
    manifest: Manifest
    source: Path
    """The folder `kingmaker init` wrote, as it was submitted."""

    @property
    def folder(self) -> Path:
        """Where the kit runs from: the server's build, or its source where the server keeps no build."""
        return self.built if self.built is not None else self.source


def kept_caches(basetemp: Path) -> Path:
    """Where the toolchain caches a server prepares (Go's, Rust's) are kept from run to run, as a
    server keeps them: pytest's own folder for this user, which holds its runs' folders."""
    users = [folder for folder in basetemp.parents if folder.name.startswith("pytest-of-")]
    return (users[0] if users else basetemp.parent) / "kingmaker-toolchain-caches"


def ready_or_skip(lang: str) -> None:
    readiness = check(next(known for known in LANGUAGES if known.name == lang))
    if not readiness.ready:
        if os.environ.get("CI"):  # .ci/run installs every toolchain: missing one there is a failure
            pytest.fail(f"no {lang} toolchain in CI: {readiness.detail}")
        pytest.skip(f"no {lang} toolchain here ({readiness.detail}): `kingmaker doctor` says what to install")
    if not bubblewrap().usable:
        pytest.skip(f"no jail here: {bubblewrap().reason}")


def submit_kit(factory: pytest.TempPathFactory, lang: str) -> Submission:
    """Init ``lang``'s kit and submit it to a server of its own (jail on), which builds and
    validates it; the server stops once it has, its home (and so the build) stays."""
    ready_or_skip(lang)
    folder = init_kit(factory.mktemp("kits"), lang)
    fetch_packages(folder, lang)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KINGMAKER_HOME", str(factory.mktemp("home")))
        patch.setenv(ENVIRONMENT, str(kept_caches(factory.getbasetemp())))  # (read as it builds)
        server = BackgroundServer(ServerConfig(address="127.0.0.1:0", connect_timeout=60.0))
        try:
            flags = ["--server", server.address, "--admin-token", server.admin_token]
            name = f"kit-{lang}"
            result = CliRunner().invoke(app, ["submit", str(folder), "--bot", name, "-g", "kingdoms", *flags])
            record, active, built = None, 0, None
            if result.exit_code == 0:
                record = versions.get_version(server.server.db, name)
                active = bots.get_bot(server.server.db, name).active_version
                if record.build_hash:
                    built = server.server.builds.path(record.build_hash)
        finally:
            server.stop()
    output = result.stdout + result.stderr
    return Submission(output, result.exit_code, record, active, built, read_manifest(folder), folder)


def submitted(kits: dict[str, Submission], factory: pytest.TempPathFactory, lang: str) -> Submission:
    """The session's submission of ``lang``'s kit, made on first use."""
    if lang not in kits:
        kits[lang] = submit_kit(factory, lang)
    return kits[lang]
