"""Issue 43, finding 5: a bot's stderr (and a build's log, a manifest, a validation's tail) reached
the reader's terminal raw: clear-screen, colours, window title, OSC 8 links. Every command that
prints what a bot or an author wrote shows its control characters as escapes (``\\x1b``) instead:
the test walks those commands over a hostile bot's match and a hostile build, and finds not one
control character in what they print."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hostile_text import CONTROL, HOSTILE, SHOWN
from typer.testing import CliRunner

from kingmaker.ladder.bots import authors, bots, versions
from kingmaker.ladder.bots.versions import VersionStatus
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.cli.visible_console import VisibleConsole
from kingmaker.server.visible_text import visible

HOSTILE_BOT = f"""
import sys
from kingmaker.sdk import Bot, Request, run


class Hostile(Bot):
    def act(self, request: Request) -> int:
        sys.stderr.write({HOSTILE!r} + "\\n")
        sys.stderr.flush()
        return 0


run(Hostile())
"""

runner = CliRunner()


def printed(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


@pytest.fixture
def hostile(server: BackgroundServer, tmp_path: Path) -> dict[str, Any]:
    """A match of ann's hostile bot, and a rejected version whose build log, reason, manifest and
    validation tail are hostile."""
    db = server.server.db
    ann, ann_token = authors.add_author(db, "ann")
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE_BOT)
    bots.register_bot(db, "hostile", ["kingdoms"], [sys.executable, str(script)], author_id=ann.id)
    bots.register_bot(db, "calm", ["kingdoms"], [sys.executable, "-m", "kingmaker.sample_bots.random_bot"])
    admin = ["--server", server.address, "--admin-token", server.admin_token]
    out = printed("match", "run", "kingdoms", "--bot", "hostile", "--bot", "calm", "--seed", "5", *admin)
    match_id = out.split(" match ", 1)[1].split()[0]
    built = versions.start_submission(db, "builder", ["kingdoms"], "0" * 64, author_id=ann.id)
    tail = {"game": "kingdoms", "players": 2, "seat": 0, "passed": False}
    validation = [{**tail, "end_reason": EndReason.CRASHED.value, "detail": HOSTILE, "stderr_tail": HOSTILE}]
    versions.mark_failed(
        db, "builder", built.number, VersionStatus.REJECTED, HOSTILE, log=HOSTILE,
        validation=validation, manifest={"build": HOSTILE},
    )  # fmt: skip
    return {"admin": admin, "author": ["--server", server.address, "--token", ann_token], "match": match_id}


COMMANDS = [
    ("bot", "logs", "hostile"),
    ("bot", "logs", "hostile", "--match", "{match}"),
    ("match", "show", "{match}"),
    ("match", "show", "{match}", "--steps"),
    ("match", "list"),
    ("bot", "builds", "builder"),
    ("bot", "build-log", "builder"),
    ("bot", "show", "hostile"),
]
"""Every command that prints what a bot or an author wrote."""


@pytest.mark.parametrize("who", ["admin", "author"])
def test_every_command_shows_a_bots_control_characters_as_escapes(hostile: dict[str, Any], who: str) -> None:
    shown_somewhere = False
    for command in COMMANDS:
        args = [part.format(match=hostile["match"]) for part in command]
        output = printed(*args, *hostile[who])
        found = CONTROL.search(output)
        assert found is None, f"{' '.join(args)} printed {found.group()!r}: {output!r}"
        shown_somewhere |= SHOWN in output
    assert shown_somewhere, "the hostile text was printed (escaped) at all"


@pytest.mark.parametrize(
    "command",
    [("bot", "logs", "hostile"), ("match", "show", "{match}", "--steps"), ("bot", "build-log", "builder")],
)
def test_the_commands_the_issue_names_show_the_escapes(
    hostile: dict[str, Any], command: tuple[str, ...]
) -> None:
    output = printed(*[part.format(match=hostile["match"]) for part in command], *hostile["author"])
    assert SHOWN in output and "\\u202eesrever" in output, output


def test_visible_writes_each_control_as_its_escape() -> None:
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("tab\tand\nnewline, CRLF\r\n") == "tab\tand\nnewline, CRLF\n"
    assert visible("lone\rCR, BEL\x07, C1\x9b, RLO\u202e") == "lone\\x0dCR, BEL\\x07, C1\\x9b, RLO\\u202e"
    assert visible(visible(HOSTILE)) == visible(HOSTILE), "idempotent: shown twice, read the same"
    assert visible("plain é ♔") == "plain é ♔"


def test_a_text_made_anywhere_prints_visible() -> None:
    """Not only strings: a rich ``Text`` built from a bot's output prints escaped too, and rich's
    own styling still reaches a colour terminal."""
    from rich.text import Text

    console = VisibleConsole(force_terminal=True, color_system="standard", width=200)
    with console.capture() as captured:
        console.print(Text("bot: " + HOSTILE, style="bold"))
    output = captured.get()
    assert "\\x1b[2J" in output and "\x1b[2J" not in output
    assert "\x1b[1m" in output, "rich's own bold is kept"
