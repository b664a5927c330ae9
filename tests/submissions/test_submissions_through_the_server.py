"""An author's way through a real server: submit a folder, watch it build and validate, see it
play a league; a failing build that leaves the previous version playing; a new version in the
rating history, `match show` and `league export`; a rollback; the ladder policy."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from sqlmodel import select
from submission_bots import c_bot, python_bot
from typer.testing import CliRunner

from kingmaker.games.registry import get_game
from kingmaker.ladder.bots import bots, versions
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.storage.models import Rating, RatingHistory
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")

runner = CliRunner()
GAME = "kingdoms"


def cli(server: BackgroundServer, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--server", server.address])
    return result.exit_code, result.stdout, result.stderr


def ok(server: BackgroundServer, *args: str) -> str:
    code, out, err = cli(server, *args)
    assert code == 0, err or out
    return out


def league(server: BackgroundServer, name: str, *bot_names: str) -> None:
    ok(server, "league", "create", name, "-g", GAME, *(f"--bot={bot}" for bot in bot_names), "--seed", "5")
    ok(server, "league", "run", name)


def test_an_author_submits_a_python_and_a_c_bot_that_pass_validation_and_play_a_league(
    server: BackgroundServer, author_bots: tuple[Path, Path]
) -> None:
    helped, cbot = author_bots
    out = ok(server, "submit", str(helped), "--bot", "helped", "-g", GAME)
    assert "submitted helped version 1" in out
    assert "bot.py: run `python bot.py`" in out  # the layout detected, said
    assert "helped version 1 is active" in out
    out = ok(server, "submit", str(cbot), "--bot", "cbot", "-g", GAME)
    assert "cbot version 1 is active" in out

    db = server.server.db
    for name in ("helped", "cbot"):
        record = versions.get_version(db, name)
        assert record.status == "active" and record.source == "submission"
        spec = get_game(GAME).spec
        counts = range(spec.min_players, spec.max_players + 1)
        assert [(match["players"], match["passed"]) for match in record.validation] == [
            (n, True) for n in counts
        ]
        assert bots.get_bot(db, name).active_version == 1
    assert versions.get_version(db, "cbot").protocol == "json-lines"
    assert "cc -O2 -o bot bot.c" in versions.get_version(db, "cbot").build_log

    league(server, "authors", "helped", "cbot")
    matches = list_matches(db, league="authors")
    assert matches and all(match.status == "finished" for match in matches)
    for match in matches:
        assert [seat.version for seat in match.seats] == [1, 1]
        assert all(
            seat.end_reason is not None and seat.end_reason.value == "finished" for seat in match.seats
        )


def test_a_failing_build_shows_the_compiler_error_and_the_previous_version_plays_on(
    server: BackgroundServer, tmp_path: Path
) -> None:
    ok(server, "submit", str(c_bot(tmp_path / "v1")), "--bot", "cbot", "-g", GAME)
    broken = c_bot(tmp_path / "v2", source="int main(void) { return undeclared_thing; }\n")
    code, out, err = cli(server, "submit", str(broken), "--bot", "cbot")
    assert code == 1
    assert "undeclared_thing" in err  # the build's last lines
    assert err.strip().splitlines()[-1].startswith("error: cbot version 2 did not build: the build failed")

    out = ok(server, "bot", "build-log", "cbot", "2")
    assert "build_failed" in out and "undeclared_thing" in out
    out = ok(server, "bot", "builds", "cbot")
    assert "build_failed" in out and "active" in out
    assert "versions: plays version 1; newest 2: build_failed" in ok(server, "bot", "show", "cbot")
    db = server.server.db
    assert bots.get_bot(db, "cbot").active_version == 1
    python_bot(tmp_path / "other")
    ok(server, "submit", str(tmp_path / "other"), "--bot", "other", "-g", GAME)
    league(server, "after-failure", "cbot", "other")
    seats = [seat for match in list_matches(db, league="after-failure") for seat in match.seats]
    assert {seat.version for seat in seats if seat.bot_id == bots.get_bot(db, "cbot").id} == {1}


def test_a_new_version_is_marked_everywhere_its_rating_follows_the_policy_and_a_rollback_brings_back_the_old(
    server: BackgroundServer, tmp_path: Path
) -> None:
    db = server.server.db
    ok(server, "submit", str(python_bot(tmp_path / "v1")), "--bot", "helped", "-g", GAME)
    ok(server, "submit", str(python_bot(tmp_path / "rival", "0")), "--bot", "rival", "-g", GAME)
    league(server, "before", "helped", "rival")
    helped_id = bots.get_bot(db, "helped").id
    with db.read() as session:
        before = session.exec(select(Rating).where(Rating.bot_id == helped_id, Rating.game == GAME)).one()
    assert before.sigma < 25 / 3

    assert "reset-sigma" in ok(server, "ladder", "policy", GAME)
    ok(server, "submit", str(python_bot(tmp_path / "v2", "count // 2")), "--bot", "helped")
    with db.read() as session:
        after = session.exec(select(Rating).where(Rating.bot_id == helped_id, Rating.game == GAME)).one()
    assert after.mu == pytest.approx(before.mu) and after.sigma == pytest.approx(25 / 3)
    assert versions.get_version(db, "helped", 1).status == "retired"

    league(server, "after", "helped", "rival")
    with db.read() as session:
        history = session.exec(
            select(RatingHistory.version).where(RatingHistory.bot_id == helped_id).order_by(RatingHistory.id)
        ).all()
    assert history[0] == 1 and history[-1] == 2 and sorted(history) == list(history)

    last = list_matches(db, league="after")[0]
    shown = json.loads(ok(server, "match", "show", str(last.match_id), "--json"))
    assert {seat["bot"]: seat["version"] for seat in shown["seats"]} == {"helped": 2, "rival": 1}
    rows = list(csv.DictReader(io.StringIO(ok(server, "league", "export", "after"))))
    assert {(row["bot"], row["version"]) for row in rows} == {("helped", "2"), ("rival", "1")}

    ok(server, "ladder", "policy", GAME, "--new-version", "keep")
    out = ok(server, "bot", "rollback", "helped", "1")
    assert "helped plays version 1 again" in out
    assert bots.get_bot(db, "helped").active_version == 1
    assert versions.get_version(db, "helped", 2).status == "retired"
    with db.read() as session:
        kept = session.exec(select(Rating).where(Rating.bot_id == helped_id, Rating.game == GAME)).one()
    assert kept.sigma < 25 / 3  # "keep": the rollback left the rating where it was
    code, _, err = cli(server, "bot", "rollback", "helped", "1")
    assert code == 1 and "already the one that plays" in err


def test_submit_no_wait_answers_at_once_and_the_version_goes_on_in_the_background(
    server: BackgroundServer, tmp_path: Path
) -> None:
    out = ok(
        server, "submit", str(python_bot(tmp_path / "bg")), "--bot", "bg", "-g", GAME, "--no-wait", "--ab"
    )
    assert out.strip().endswith(": building") and "active" not in out
    pipeline = server.server.submissions
    assert pipeline is not None
    server.run(pipeline.idle())
    record = versions.get_version(server.server.db, "bg")
    assert record.status == "active" and record.ab  # a first version has nothing to duel
    code, _, err = cli(server, "submit", str(tmp_path / "missing"), "--bot", "bg")
    assert code == 1 and "is neither a folder nor an archive" in err


def test_a_version_for_more_games_widens_the_bot_only_when_it_plays(
    server: BackgroundServer, tmp_path: Path
) -> None:
    """Issue 47: an upload naming four games made the bot play them at once, while version 1,
    validated for Kingdoms only, still played. Now version 2 is validated in both games it names
    and the bot plays them from its activation on, not before."""
    db = server.server.db
    ok(server, "submit", str(python_bot(tmp_path / "v1")), "--bot", "wide", "-g", GAME)
    out = ok(
        server,
        "submit",
        str(python_bot(tmp_path / "v2")),
        "--bot",
        "wide",
        "-g",
        GAME,
        "-g",
        "kingsville",
        "--no-wait",
    )
    assert out.strip().endswith(": building")
    assert bots.get_bot(db, "wide").games == (GAME,), "version 1 plays on in its own game only"
    pipeline = server.server.submissions
    assert pipeline is not None
    server.run(pipeline.idle())
    record = versions.get_version(db, "wide", 2)
    assert record.status == "active", record.status_reason
    assert sorted({match["game"] for match in record.validation}) == [GAME, "kingsville"]
    assert bots.get_bot(db, "wide").games == (GAME, "kingsville")


def sample_bot_folder(folder: Path, module: str) -> Path:
    """A bot folder whose bot.py runs one of the sample bots."""
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(f"import runpy\nrunpy.run_module({module!r}, run_name='__main__')\n")
    return folder


def test_submit_ab_replaces_the_active_version_only_when_its_duel_shows_it_is_not_weaker(
    server: BackgroundServer, tmp_path: Path, far_apart_ab_gate: None
) -> None:
    db = server.server.db
    random_bot = "kingmaker.sample_bots.random_bot"
    greedy_bot = "kingmaker.sample_bots.kings_road.greedy_bot"
    first = sample_bot_folder(tmp_path / "v1", random_bot)
    out = ok(server, "submit", str(first), "--bot", "ab", "-g", "kings_road", "--ab")
    assert "ab version 1 is active" in out, "a first version has nothing to be compared with"

    second = sample_bot_folder(tmp_path / "v2", greedy_bot)
    (second / "kingmaker.toml").write_text('run = "python3 bot.py"\ngames = ["kings_road"]\n')
    out = ok(server, "submit", str(second), "--bot", "ab", "--ab")
    assert "A/B duel against the active version" in out
    # Followed live in plain words, the game named, with how far it has gone and (once a match
    # has given a rate) about how long it has left.
    assert re.search(
        r"A/B ab v2: still undecided in King's Road: \d+ of at most 800 matches against v1, "
        r".*(min|minute) left",
        out,
    )
    # It ends with the gate's verdict in words.
    verdict = r"not weaker than v1 in King's Road: \d+ matches, [+-]\d+ ± (\d+|inf) Elo"
    assert re.search(r"A/B ab v2: " + verdict, out)
    assert "ab version 2 is active" in out
    duel = versions.get_version(db, "ab", 2).validation[-1]["ab"]
    assert duel["verdict"] == "H1" and duel["game"] == "kings_road"
    # build-log tells the duel's verdict, and --json gives it with the manifest as written.
    assert re.search(r"A/B duel: " + verdict, ok(server, "bot", "build-log", "ab", "2"))
    logged = json.loads(ok(server, "bot", "build-log", "ab", "2", "--json"))
    assert logged["manifest"]["games"] == ["kings_road"], "a list, as kingmaker.toml says it"
    assert logged["ab"]["verdict"] == "H1" and logged["ab"]["done"] and "(accepted)" in logged["ab"]["reason"]
    assert [game["game"] for game in logged["ab_games"]] == ["kings_road"]

    code, out, err = cli(
        server, "submit", str(sample_bot_folder(tmp_path / "v3", random_bot)), "--bot", "ab", "--ab"
    )
    assert code == 1 and "A/B ab v3: still undecided in King's Road" in out
    assert re.search(
        r"ab version 3 was rejected: A/B duel: weaker than v2 in King's Road: \d+ matches, [+-]\d+ ± ", err
    )
    assert bots.get_bot(db, "ab").active_version == 2, "the weaker version never played"
    assert versions.get_version(db, "ab", 3).status == "rejected"
