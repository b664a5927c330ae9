"""An author plays their own bot's versions (``NAME@N``, docs/play.md): the version asked for takes
the seat and the stored match says so; another author asking for it is told exactly what an
owner naming a missing version is told; a version that cannot play is refused with the reason;
the play page offers the owner (and only the owner) their versions; the terminal takes them."""

from __future__ import annotations

import random
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass

import pytest
from play_support import WAIT, Table, play_randomly, stored
from sqlmodel import select
from typer.testing import CliRunner

from kingmaker.games.registry import game_names
from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.storage.models import Author, Bot, BotVersion, MatchSeat, VersionStatus, utc_now
from kingmaker.server.cli import app
from kingmaker.server.web.seat_relay import SeatRelay, SeatState
from kingmaker.server.web.serve import BackgroundWebServer
from kingmaker.v1 import admin_pb2

from support import bot_command

runner = CliRunner()


@dataclass
class Owned:
    table: Table
    bob: str
    """Another author's token."""


@pytest.fixture
def owned(table: Table) -> Owned:
    """ann's bot annbot: version 1, then version 2 (active, version 1 retired), a version 3
    whose build failed and a submitted version 4 that played once and was pruned since."""
    db = table.server.server.db
    with db.read() as session:
        ann_id = session.exec(select(Author.id).where(Author.name == "ann")).one()
    command = list(bot_command("random_bot.py"))
    bots.register_bot(db, "annbot", game_names(), command, author_id=ann_id)
    bots.edit_bot(db, "annbot", command=[*command, "--again"])
    with db.transaction() as session:
        bot = session.exec(select(Bot).where(Bot.name == "annbot")).one()
        session.add(
            BotVersion(
                bot_id=bot.id or 0, number=3, status=VersionStatus.BUILD_FAILED, status_reason="pip failed"
            )
        )
        session.add(
            BotVersion(
                bot_id=bot.id or 0,
                number=4,
                status=VersionStatus.RETIRED,
                source="submission",
                pruned_at=utc_now(),
            )
        )
    _, bob = authors.add_author(db, "bob")
    return Owned(table, bob)


def sit(table: Table, token: str, opponent: str) -> SeatRelay:
    return SeatRelay(
        table.client,
        token,
        admin_pb2.PlaySetup(game="kingdoms", opponents=[opponent], bank_ms=60_000, increment_ms=1000, seed=5),
    )


def refusal(relay: SeatRelay) -> str:
    deadline = time.monotonic() + WAIT
    while not relay.over and time.monotonic() < deadline:
        relay.wait(relay.state.version, 5.0)
    state: SeatState = relay.snapshot()
    assert relay.over and state.match_id == "", state
    return state.failure


def test_an_owner_plays_their_first_version_while_the_second_is_active(owned: Owned) -> None:
    table = owned.table
    state = play_randomly(sit(table, table.ann, "annbot@1"), random.Random(5))
    assert state.end is not None and state.end["end_reason"] == "finished", state.failure
    assert stored(table, state.match_id).reasons == ["finished", "finished"]
    with table.server.server.db.read() as session:
        seat = session.exec(
            select(MatchSeat).where(MatchSeat.match_id == int(state.match_id), MatchSeat.seat == 1)
        ).one()
        active = session.exec(select(Bot.active_version).where(Bot.name == "annbot")).one()
    assert (seat.version, active) == (1, 2)


def test_another_author_is_told_what_a_missing_version_is(owned: Owned) -> None:
    table = owned.table
    theirs = refusal(sit(table, owned.bob, "annbot@1"))
    missing = refusal(sit(table, table.ann, "annbot@9"))
    assert theirs == missing.replace("annbot@9", "annbot@1"), (theirs, missing)
    assert "annbot@1: no version of a bot of yours by that number" in theirs
    assert "rando@1: no version of a bot of yours" in refusal(sit(table, table.ann, "rando@1"))


def test_a_version_that_cannot_play_or_a_bad_pick_gets_one_line(owned: Owned) -> None:
    table = owned.table
    failed = refusal(sit(table, table.ann, "annbot@3"))
    assert "version 3 of annbot is build_failed (pip failed): only a version that built" in failed
    pruned = refusal(sit(table, table.ann, "annbot@4"))
    assert "version 4 of annbot was pruned (its archive and build are gone)" in pruned
    bad = refusal(sit(table, table.ann, "annbot@x"))
    assert "'annbot@x': a bot's version is NAME@N" in bad
    assert "\n" not in failed + pruned + bad


def test_the_play_page_offers_versions_to_their_owner_only(owned: Owned) -> None:
    table = owned.table
    web = BackgroundWebServer(table.server.server.db, admin_address=table.server.address)
    try:
        pages = {token: _play_page(web.url, token) for token in (table.ann, owned.bob)}
    finally:
        web.stop()
    offered = re.findall(r'<option value="(annbot@\d+)">', pages[table.ann])
    assert offered and set(offered) == {"annbot@2", "annbot@1"}, offered
    assert "annbot@" not in pages[owned.bob]


def test_the_terminal_takes_a_version(owned: Owned) -> None:
    server = ["--server", owned.table.server.address, "--admin-token", owned.table.ann]
    bad = runner.invoke(app, ["play", "kingdoms", "--bot", "annbot@3", *server])
    assert bad.exit_code != 0 and "version 3 of annbot is build_failed" in bad.output, bad.output


def _play_page(url: str, token: str) -> str:
    """The /play form as the author with this token sees it, once signed in."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(f"{url}/console") as answer:
        csrf = re.search(r'name="csrf" value="([^"]+)"', answer.read().decode())
    assert csrf is not None
    body = urllib.parse.urlencode({"csrf": csrf.group(1), "token": token}).encode()
    opener.open(f"{url}/console/sign-in", data=body).close()
    with opener.open(f"{url}/play") as answer:
        return str(answer.read().decode())
