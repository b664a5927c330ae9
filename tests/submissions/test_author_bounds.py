"""An author's bounds through a real server: builds past builds-at-once wait, queued and shown
in `bot builds`, and start in order; submissions per hour and bytes stored are refused in one
line naming the bound and how to free it, before anything is stored; `kingmaker prune`."""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from submission_bots import python_bot
from typer.testing import CliRunner

from kingmaker.ladder.bots import versions
from kingmaker.ladder.matches.compact_logs import pack_log
from kingmaker.ladder.matches.trial_matches import TrialSeat, record_trial
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.building.submission_limits import SubmissionLimits
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")

runner = CliRunner()
GAME = "kingdoms"
BUILD_SECONDS = 6
"""How long each of the slow bot's builds sleeps: two builds one after the other end at least
this far apart; two at once would end together."""


@pytest.fixture
def server_keeping_one(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    """A server whose retention keeps one version beside the active one."""
    config = ServerConfig(address="127.0.0.1:0", submission_limits=SubmissionLimits(keep_versions=1))
    running = BackgroundServer(config)
    try:
        yield running
    finally:
        running.stop()


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout + result.stderr


def as_admin(server: BackgroundServer) -> list[str]:
    return ["--server", server.address, "--admin-token", server.admin_token]


def author(server: BackgroundServer, name: str, *bounds: str) -> list[str]:
    code, out = cli("author", "add", name, *as_admin(server))
    assert code == 0, out
    token = next(word for word in out.split() if word.startswith("km_"))
    if bounds:
        code, out = cli("author", "quota", name, *bounds, *as_admin(server))
        assert code == 0, out
    return ["--server", server.address, "--token", token]


def slow_bot(folder: Path) -> Path:
    python_bot(folder)
    (folder / "kingmaker.toml").write_text(f'run = "python bot.py"\nbuild = "sleep {BUILD_SECONDS}"\n')
    return folder


def wait_until_final(server: BackgroundServer, bot: str, count: int) -> list[versions.VersionRecord]:
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        found = versions.list_versions(server.server.db, bot)
        if len(found) == count and all(record.final for record in found):
            pipeline = server.server.submissions
            assert pipeline is not None
            server.run(pipeline.idle())  # each version's way ends with its bot's prune
            found = versions.list_versions(server.server.db, bot)
            return sorted(found, key=lambda record: record.number)
        time.sleep(0.5)
    raise AssertionError(f"the versions of {bot} did not finish: {found}")


def test_builds_past_the_bound_wait_queued_in_order_and_are_shown_with_their_place(
    server: BackgroundServer, tmp_path: Path
) -> None:
    ann = author(server, "ann")  # one build at once: the default
    folder = slow_bot(tmp_path / "slow")
    answers = []
    for _ in range(3):
        code, out = cli("submit", str(folder), "--bot", "slow", "-g", GAME, "--no-wait", *ann)
        assert code == 0, out
        answers.append(out)
    assert "queued" not in answers[0] and "queued" in answers[1] and "queued" in answers[2]
    code, shown = cli("bot", "builds", "slow", *ann)
    assert code == 0, shown
    assert "1st in line" in shown and "2nd in line" in shown, shown
    built = wait_until_final(server, "slow", 3)
    assert [record.status for record in built] == ["retired", "retired", "active"]
    # Each build started only when the one before it ended: their ends are a build's length apart.
    ends = [record.built_at for record in built]
    assert all(end is not None for end in ends)
    for earlier, later in itertools.pairwise(ends):
        assert later is not None and earlier is not None
        assert (later - earlier).total_seconds() >= BUILD_SECONDS


def test_submissions_per_hour_and_bytes_stored_are_refused_in_one_line_storing_nothing(
    server: BackgroundServer, tmp_path: Path
) -> None:
    bea = author(server, "bea", "--submissions-per-hour", "1", "--stored-mib", "1")
    blobs = Path(os.environ["KINGMAKER_HOME"]) / "blobs"
    big = python_bot(tmp_path / "big")
    (big / "noise.bin").write_bytes(os.urandom(2 * 1024 * 1024))  # incompressible: over 1 MiB packed
    code, out = cli("submit", str(big), "--bot", "beabot", "-g", GAME, "--no-wait", *bea)
    assert code != 0
    refusal = [line for line in out.splitlines() if "bytes stored" in line]
    assert len(refusal) == 1, out
    assert "kingmaker prune" in refusal[0] and "kingmaker author quota bea --stored-mib N" in refusal[0]
    assert not blobs.exists() or os.listdir(blobs) == []  # refused before a byte was kept

    code, out = cli("submit", str(python_bot(tmp_path / "small")), "--bot", "beabot", "-g", GAME, *bea)
    assert code == 0, out
    stored = sorted(os.listdir(blobs))
    code, out = cli("submit", str(python_bot(tmp_path / "small")), "--bot", "beabot", *bea)
    assert code != 0
    refusal = [line for line in out.splitlines() if "submissions per hour" in line]
    assert len(refusal) == 1 and "kingmaker author quota bea --submissions-per-hour N" in refusal[0], out
    assert sorted(os.listdir(blobs)) == stored  # nothing more kept

    code, out = cli("author", "list", *as_admin(server))
    assert code == 0 and "bea" in out


def test_a_built_folder_past_the_bytes_stored_fails_counted_at_its_full_length(
    server: BackgroundServer, tmp_path: Path
) -> None:
    """Issue 43, finding 2: a build's sparse file (0 blocks) counts at its length against the
    author's bytes stored, as the submission's archive does; before, it was kept past the bound."""
    cy = author(server, "cy", "--stored-mib", "4")
    hollow = python_bot(tmp_path / "hollow")
    (hollow / "kingmaker.toml").write_text('run = "python bot.py"\nbuild = "truncate -s 6M hollow"\n')
    code, out = cli("submit", str(hollow), "--bot", "cybot", "-g", GAME, "--no-wait", *cy)
    assert code == 0, out
    [version] = wait_until_final(server, "cybot", 1)
    assert version.status == "build_failed", version
    assert version.status_reason.startswith("author cy keeps "), version.status_reason
    assert "6.0 MiB built folder would pass their bound (bytes stored: 4 MiB)" in version.status_reason


def test_prune_keeps_the_active_version_and_the_newest_and_removes_the_rest(
    server_keeping_one: BackgroundServer, tmp_path: Path
) -> None:
    server = server_keeping_one
    cat = author(server, "cat", "--submissions-per-hour", "10")
    home = Path(os.environ["KINGMAKER_HOME"])
    for choice in ("0", "count - 1", "count // 2"):  # three different archives
        code, out = cli(
            "submit", str(python_bot(tmp_path / choice, choice)), "--bot", "catbot", "-g", GAME, *cat
        )
        assert code == 0, out
    found = wait_until_final(server, "catbot", 3)
    # Automatic: after each version's way, only the active one and the newest other keep files.
    assert [record.pruned for record in found] == [True, False, False]
    assert not (home / "blobs" / str(found[0].archive_hash)).exists()
    assert (home / "blobs" / str(found[1].archive_hash)).exists()
    assert (home / "builds" / str(found[2].build_hash)).is_dir()
    code, out = cli("bot", "builds", "catbot", *cat)
    assert code == 0 and "pruned" in out, out
    code, out = cli("bot", "rollback", "catbot", "1", *cat)
    assert code != 0 and "was pruned" in out
    # A pruned version's trial matches (its validation's) went with it; the kept ones' stay.
    code, out = cli("bot", "trials", "catbot", "--json", *cat)
    assert code == 0, out
    assert {trial["version"] for trial in json.loads(out)} == {2, 3}
    # The command: nothing more to prune for this bot but a trial match of version 1 kept since
    # (as one stored before trial matches were pruned would be); another author's bot is not theirs.
    seats = [TrialSeat("catbot", 1, 1, 1, "finished"), TrialSeat("random-1", None, 0, 2, "finished")]
    record_trial(
        server.server.db, "catbot", 1, "validation", GAME, "e", 1, {}, seats, pack_log(GAME, [], [[], []], {})
    )
    code, out = cli("prune", "--bot", "catbot", "--dry-run", *cat)
    assert code == 0 and "would drop 1 trial matches" in out and "nothing to prune" in out, out
    code, out = cli("prune", "--bot", "catbot", *cat)
    assert code == 0 and "dropped 1 trial matches" in out, out
    code, out = cli("prune", "--author", "someone-else", *cat)
    assert code != 0 and "only the admin" in out
