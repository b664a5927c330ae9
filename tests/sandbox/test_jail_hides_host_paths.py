"""What a jailed bot learns of the host's paths from ``/proc`` (issue 32, item 2): the server's home
path, read there, was what the archive recipes needed.

The bot is set up as a submitted version plays: its built folder in the home's build store, shown
at ``/bot``; the home covered; the server's socket in its run folder; the bot's own folder a tmpfs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sandbox_helpers import needs_jail, run_to_end

from kingmaker.server.jail.launcher import SandboxPolicy
from kingmaker.server.jail.run_folder import make_run_folder

from support import PYTHON

pytestmark = needs_jail

READER = """
import os, sys
# The paths to look for come in the environment (the command line is what is being read).
looked_for = os.environ["LOOK_FOR"].split(":")
for name in ("/proc/1/cmdline", "/proc/self/mountinfo"):
    text = open(name, "rb").read().replace(b"\\0", b" ").decode(errors="replace")
    named = [path for path in looked_for if path in text] or ["nothing"]
    shape = "bwrap" if "bwrap" in text else "" if "cmdline" in name else "/bot" if " /bot " in text else ""
    print(f"hostile: {name} {shape} names {' '.join(named)}", file=sys.stderr)
"""


def what_the_bot_reads(tmp_path: Path) -> dict[str, str]:
    """``{file: what the bot found in it}``: the home, the run folder or the test's folder."""
    home = tmp_path / "server-home"
    built = home / "builds" / ("0" * 64)
    built.mkdir(parents=True)
    (built / "bot.py").write_text(READER)
    os.chmod(built, 0o755)
    for folder in (home, home / "builds"):
        os.chmod(folder, 0o755)
    run_folder = make_run_folder()
    try:
        policy = SandboxPolicy(
            bot_folder=str(built), hidden_paths=(str(home),), unix_socket=str(run_folder / "arena.sock")
        )
        (run_folder / "arena.sock").touch()
        looked_for = ":".join(map(str, (home, run_folder, tmp_path)))
        finished = run_to_end((PYTHON, "/bot/bot.py"), policy, {"LOOK_FOR": looked_for})
    finally:
        for entry in sorted(run_folder.iterdir()):
            entry.unlink()
        run_folder.rmdir()
    assert finished.jailed
    found = dict(line.split(" ", 1) for line in finished.outcomes)
    assert set(found) == {"/proc/1/cmdline", "/proc/self/mountinfo"}, finished.stderr
    return found


def test_the_jails_first_process_names_neither_the_home_nor_the_run_folder(tmp_path: Path) -> None:
    """(The bot's own command stays in it: a Python bot runs on the server's interpreter, which
    it knows anyway from ``sys.executable``.)"""
    assert what_the_bot_reads(tmp_path)["/proc/1/cmdline"] == "bwrap names nothing"


@pytest.mark.xfail(
    strict=True,
    reason="open: a bind mount's source path within its file system shows in mountinfo "
    "(the built folder under HOME/builds); hiding it needs the folder copied into the jail",
)
def test_the_jails_mounts_name_neither_the_home_nor_the_run_folder(tmp_path: Path) -> None:
    assert what_the_bot_reads(tmp_path)["/proc/self/mountinfo"] == "/bot names nothing"
