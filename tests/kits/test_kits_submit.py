"""Every starter kit goes the author's way to the ladder: `kingmaker init`, then `kingmaker submit`
of the folder as it is (TypeScript's packages fetched first, as its README says): the server
builds it in its jail, offline, from the kit's manifest, and it passes validation against the
random bot. (test_kits_play.py plays each kit in every game, managed and remote.)"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from kits_support import fetch_packages, init_kit
from typer.testing import CliRunner

from kingmaker.kits.languages import LANGUAGES, check
from kingmaker.ladder.bots import bots, versions
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.building.toolchain_caches import ENVIRONMENT, SEEDS
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
runner = CliRunner()


def kept_caches(basetemp: Path) -> Path:
    """Where the toolchain caches a server prepares (Go's, Rust's) are kept from run to run, as a
    server keeps them: pytest's own folder for this user, which holds its runs' folders."""
    users = [folder for folder in basetemp.parents if folder.name.startswith("pytest-of-")]
    return (users[0] if users else basetemp.parent) / "kingmaker-toolchain-caches"


@pytest.fixture(scope="module")
def submissions_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    if not bubblewrap().usable:
        pytest.skip(f"no jail here: {bubblewrap().reason}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KINGMAKER_HOME", str(tmp_path_factory.mktemp("home")))
        server = BackgroundServer(ServerConfig(address="127.0.0.1:0", connect_timeout=60.0))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(ENVIRONMENT, str(kept_caches(tmp_path_factory.getbasetemp())))  # (read as it builds)
        try:
            yield server
        finally:
            server.stop()


@pytest.mark.parametrize("lang", [language.name for language in LANGUAGES])
def test_a_kit_is_submitted_as_written_built_offline_and_validated(
    submissions_server: BackgroundServer, tmp_path: Path, lang: str
) -> None:
    readiness = check(next(known for known in LANGUAGES if known.name == lang))
    if not readiness.ready:
        if os.environ.get("CI"):
            pytest.fail(f"no {lang} toolchain in CI: {readiness.detail}")
        pytest.skip(f"no {lang} toolchain here ({readiness.detail}): `kingmaker doctor` says what to install")
    folder = init_kit(tmp_path, lang)
    fetch_packages(folder, lang)
    server = submissions_server
    flags = ["--server", server.address, "--admin-token", server.admin_token]
    result = runner.invoke(app, ["submit", str(folder), "--bot", f"kit-{lang}", "-g", "kingdoms", *flags])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert f"kit-{lang} version 1 is active" in result.stdout
    record = versions.get_version(server.server.db, f"kit-{lang}")
    assert record.source == "submission" and record.status == "active"
    assert all(match["passed"] for match in record.validation)
    assert bots.get_bot(server.server.db, f"kit-{lang}").active_version == 1
    if lang in SEEDS:  # (built from the cache its kit prepared, in this run or an earlier one)
        assert f"starts from the server's prepared {lang} toolchain cache" in record.build_log
