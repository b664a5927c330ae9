"""The separate "with people" ratings (docs/play.md): off by default, a person's match moves no
rating anywhere; with `serve --rate-people`, an author's match rates the person and the bots in
their own table (`kingmaker ladder GAME --with-people`) and leaves the ladder as it was; a
guest's match is never rated."""

from __future__ import annotations

import json
import random
from typing import Any

from play_support import Table, play_randomly, setup, stored
from sqlmodel import select
from typer.testing import CliRunner

from kingmaker.ladder.storage.models import PeopleRating, Rating
from kingmaker.server.cli import app
from kingmaker.server.web.seat_relay import SeatRelay

runner = CliRunner()


def ladder(table: Table, *flags: str) -> dict[str, Any]:
    server = ["--server", table.server.address, "--admin-token", "admin"]
    answer = runner.invoke(app, ["ladder", "kingsburg", "--json", *flags, *server])
    assert answer.exit_code == 0, answer.output
    shown: dict[str, Any] = json.loads(answer.stdout)
    return shown


def every_rating(table: Table) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every ladder row and every "with people" row, as tuples."""
    with table.server.server.db.read() as session:
        rows = [(r.bot_id, r.game, r.mu, r.sigma, r.matches) for r in session.exec(select(Rating)).all()]
        people = [(r.bot_id, r.game, r.mu, r.sigma, r.matches) for r in session.exec(select(PeopleRating))]
    return sorted(rows), sorted(people)


def play(table: Table, guest: str | None = None) -> str:
    relay = SeatRelay(table.client, None if guest else table.ann, setup("kingsburg", 1), guest=guest)
    state = play_randomly(relay, random.Random(5))
    assert state.end is not None and state.end["end_reason"] == "finished", state.failure
    return state.match_id


def test_off_by_default_a_persons_match_moves_no_rating(table: Table) -> None:
    before = every_rating(table)
    match = stored(table, play(table))
    assert not match.rated and "never rated" in match.status_reason
    assert every_rating(table) == before
    assert before[1] == []
    assert ladder(table, "--with-people")["standings"] == []


def test_rated_with_people_apart_and_the_ladder_unchanged(rated_table: Table) -> None:
    ladder_before, rows_before = ladder(rated_table), every_rating(rated_table)[0]
    match = stored(rated_table, play(rated_table))
    assert not match.rated and "rated with people only" in match.status_reason
    assert ladder(rated_table) == ladder_before
    assert every_rating(rated_table)[0] == rows_before
    people = ladder(rated_table, "--with-people")
    assert sorted(row["bot"] for row in people["standings"]) == ["person:ann", "rando"]
    assert people["total"] == 2
    assert all(row["matches"] == 1 and row["sigma"] < 25 / 3 for row in people["standings"])
    assert sum(row["wins"] for row in people["standings"]) >= 1


def test_a_guest_is_never_rated(rated_table: Table) -> None:
    before = every_rating(rated_table)
    match = stored(rated_table, play(rated_table, guest="gus"))
    assert "never rated" in match.status_reason
    assert every_rating(rated_table) == before
    assert before[1] == []
