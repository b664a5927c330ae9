"""An author reads why their bot lost a seat, and what it printed, and nobody else does.

Before, a bot's stderr was kept only when its seat ended by a fault, and shown to the admin
alone; a strike that did not forfeit left "strikes 2" and nothing else; a crash read "the bot's
process exited" with no code. Now each seat that left something keeps its stderr for the match,
each strike with its request and reason, and how its process ended, for its owner."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.bots import authors, bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

from support import REPO

runner = CliRunner()

TALKATIVE = '''
import os
import sys
from kingmaker.sdk import Bot, Request, run


class Talkative(Bot):
    """Says what it does on stderr; answers its third request with an index past the end."""

    def __init__(self) -> None:
        self.count = 0

    def act(self, request: Request) -> int:
        self.count += 1
        print(f"thinking about request {request.request_id}", file=sys.stderr, flush=True)
        return len(request.legal_actions) if self.count == 3 else 0


run(Talkative())
'''


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def match_of_ann_and_ben(server: BackgroundServer, tmp_path: Path, config: Path) -> Iterator[dict[str, str]]:
    """ann's talkative bot against ben's crashing bot, played as a rated one-off by the admin;
    then commands run away from the server's home (no admin token file in reach)."""
    db = server.server.db
    ann, ann_token = authors.add_author(db, "ann")
    ben, ben_token = authors.add_author(db, "ben")
    script = tmp_path / "talkative.py"
    script.write_text(TALKATIVE)
    bots.register_bot(db, "annbot", ["kingdoms"], [sys.executable, str(script)], author_id=ann.id)
    crash = [sys.executable, str(REPO / "sample_bots" / "faulty" / "crash_bot.py")]
    bots.register_bot(db, "benbot", ["kingdoms"], crash, author_id=ben.id)
    admin = ["--server", server.address, "--admin-token", server.admin_token]
    seats = ["--bot", "annbot", "--bot", "benbot", "--seed", "5"]
    code, out, err = cli("match", "run", "kingdoms", *seats, *admin)
    assert code == 3, out + err  # a seat ended by its bot's fault
    match_id = out.split(" match ", 1)[1].split()[0]
    token_file = Path(os.environ["KINGMAKER_HOME"]) / "admin-token"
    token_file.rename(token_file.with_name("away"))
    try:
        yield {"match": match_id, "ann": ann_token, "ben": ben_token, "server": server.address}
    finally:
        token_file.with_name("away").rename(token_file)


def test_the_owner_reads_each_strike_its_stderr_and_how_its_process_ended(
    match_of_ann_and_ben: dict[str, str],
) -> None:
    as_ann = ["--server", match_of_ann_and_ben["server"], "--token", match_of_ann_and_ben["ann"]]
    code, out, err = cli("bot", "logs", "annbot", *as_ann)
    assert code == 0, err
    assert f"match {match_of_ann_and_ben['match']} (kingdoms" in out
    strikes = [line.strip() for line in out.splitlines() if "strike on request" in line]
    asked = [line.split()[-1] for line in out.splitlines() if "thinking about request" in line]
    # One strike, on the bot's third request (the one it answered past the end), and why.
    assert len(strikes) == 1, out
    assert strikes[0].startswith(f"strike on request {asked[2]}: malformed: index "), out
    assert len(asked) > 10, "its stderr over the whole match"

    as_ben = ["--server", match_of_ann_and_ben["server"], "--token", match_of_ann_and_ben["ben"]]
    code, out, err = cli("bot", "logs", "benbot", *as_ben)
    assert code == 0, err
    assert "its process exited with code 3" in out


def test_nobody_else_reads_them(match_of_ann_and_ben: dict[str, str]) -> None:
    match_id = match_of_ann_and_ben["match"]
    as_ben = ["--server", match_of_ann_and_ben["server"], "--token", match_of_ann_and_ben["ben"]]
    code, _, err = cli("bot", "logs", "annbot", *as_ben)
    assert code == 1 and "annbot is not your bot" in err
    code, out, err = cli("match", "show", match_id, *as_ben)
    assert code == 0, err
    assert "thinking about request" not in out, "ann's stderr shown to ben"
    assert "exited with code 3" in out, "ben sees his own seat's log"
    code, out, err = cli("match", "show", match_id, "--server", match_of_ann_and_ben["server"])
    assert code == 0, err
    assert "thinking about request" not in out and "exited with code 3" not in out, "shown to anyone"
    as_ann = ["--server", match_of_ann_and_ben["server"], "--token", match_of_ann_and_ben["ann"]]
    code, out, _ = cli("match", "show", match_id, *as_ann)
    assert "thinking about request 3" in out and "exited with code 3" not in out
