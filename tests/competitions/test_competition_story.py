"""Issue 37's story through a real server and the command line, on a clock the test holds: three
authors enter a bot each; before the deadline they submit and one selects an older version; the
deadline passes; a late entry is refused naming the deadline and a later submission plays
elsewhere only; the finals play the frozen versions alone and publish a winner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from competition_support import (
    AUTHORS,
    add_authors,
    cli,
    move_clock,
    ok,
    status,
    submit,
    submit_side_by_side,
    wait_for,
)
from sqlmodel import col, select

from kingmaker.ladder.storage.models import CompetitionStage, Match, MatchSeat, MatchStatus
from kingmaker.server.background import BackgroundServer
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")]


def finals_seats(server: BackgroundServer, name: str) -> list[tuple[str, int | None]]:
    """(bot name, version) of every seat of every finished finals match."""
    from kingmaker.ladder.storage.models import Bot, Competition

    with server.server.db.read() as session:
        competition = session.exec(select(Competition).where(Competition.name == name)).one()
        leagues = session.exec(
            select(CompetitionStage.league_id).where(CompetitionStage.competition_id == competition.id)
        ).all()
        rows = session.exec(
            select(Bot.name, MatchSeat.version)
            .join(MatchSeat, col(MatchSeat.bot_id) == col(Bot.id))
            .join(Match, col(Match.id) == col(MatchSeat.match_id))
            .where(col(Match.league_id).in_(list(leagues)), Match.status == MatchStatus.FINISHED)
        ).all()
    return [(bot, version) for bot, version in rows]


def test_three_authors_from_entries_to_a_published_winner(
    competition_server: BackgroundServer, clock_file: Path, tmp_path: Path
) -> None:
    who = add_authors(competition_server.address, competition_server.admin_token)
    firsts = [(tmp_path / f"{author}-1", f"{author}-bot", "count - 1", who[author]) for author in AUTHORS]
    assert submit_side_by_side(firsts) == [1, 1, 1]
    deadline = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    code, _, err = cli("competition", "create", "cup", "-g", "kingdoms", "--closes", "soon", *who["admin"])
    assert code != 0 and "bad time 'soon'" in err and len(err.strip().splitlines()) == 1
    later = (datetime.now(UTC) + timedelta(hours=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ok("competition", "create", "cup", "-g", "kingdoms", "--closes", deadline, "--rounds", "1", "--cut", "2",
       "--finals-at", later, *who["admin"])  # fmt: skip
    code, _, err = cli("competition", "enter", "cup", "ann-bot", *who["ben"])
    assert code != 0 and "ann-bot is not your bot" in err
    for author in ("ann", "ben", "cat"):
        ok("competition", "enter", "cup", f"{author}-bot", *who[author])

    # Open: the entries play the competition's ladder while their authors submit.
    wait_for(
        "the open ladder to play", lambda: any(s["matches"] for s in status("cup", who["ann"])["standings"])
    )
    # (side by side: the open ladder plays on, unasserted, until the deadline)
    seconds = [(tmp_path / f"{author}-2", f"{author}-bot", "0", who[author]) for author in ("ann", "cat")]
    assert submit_side_by_side(seconds) == [2, 2]
    ok("competition", "select", "cup", "cat-bot", "1", *who["cat"])  # cat keeps v1 for the finals
    shown = ok("competition", "status", "cup", *who["ann"])
    assert "phase: open" in shown and "ann-bot v2" in shown and "cat-bot v1 (selected)" in shown

    # The deadline passes: each entry is frozen; late entries are refused; later versions play
    # elsewhere only.
    move_clock(clock_file, hours=2)
    closed = wait_for(
        "the deadline to be applied", lambda: (s := status("cup", who["ann"]))["phase"] == "closed" and s
    )
    frozen = {entry["bot"]: entry["frozen_version"] for entry in closed["entries"]}
    assert frozen == {"ann-bot": 2, "ben-bot": 1, "cat-bot": 1}
    submit(tmp_path / "ben-late", "ben-late", "count - 1", who["ben"])
    code, _, err = cli("competition", "enter", "cup", "ben-late", *who["ben"])
    assert code != 0 and f"closed at {deadline}" in err and len(err.strip().splitlines()) == 1
    assert submit(tmp_path / "ben-2", "ben-bot", "0", who["ben"]) == 2  # after the deadline
    code, _, err = cli("competition", "finals", "cup", *who["ann"])
    assert code != 0 and "only the admin" in err

    # Finals, started early by the admin: the frozen versions only, to a published winner.
    ok("competition", "finals", "cup", *who["admin"])
    final = wait_for("the winner", lambda: (s := status("cup", who["ann"]))["phase"] == "final" and s)
    (started,) = [d["reason"] for d in final["decisions"] if d["kind"] == "finals"]
    assert started.startswith("finals started by the admin, before their time"), started
    seats = finals_seats(competition_server, "cup")
    assert set(seats) == {("ann-bot", 2), ("ben-bot", 1), ("cat-bot", 1)}
    assert ("ben-bot", 2) not in seats, "a version submitted after the deadline never plays the finals"
    assert final["winner"] == final["standings"][0]["bot"]
    kinds = [d["kind"] for d in final["decisions"]]
    assert kinds.count("freeze") == 3 and kinds.count("cut") == 1 and kinds.count("winner") == 1
    assert final["standings"][0]["note"] == "winner"
    shown = ok("competition", "status", "cup", "--server", competition_server.address)  # anyone may read it
    assert f"winner: {final['winner']}" in shown
    listed = ok("competition", "list", "--json", *who["ann"])
    assert '"phase": "final"' in listed
