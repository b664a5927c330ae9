"""Versions in the ladder: each submission or admin command is version N; activating one retires
the previous, moves the ratings by the game's policy and reinstates a waiting bot; a failed one
changes nothing; a rollback brings back only a version that played; matches and the rating history
record the version that played."""

from __future__ import annotations

import pytest
from ladder_support import TEST_GAME, snapshot
from sqlmodel import select

from kingmaker.ladder.bots import bots, versions
from kingmaker.ladder.bots.versions import WAITING_FOR_FIRST_VERSION
from kingmaker.ladder.errors import InvalidRequestError
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.ratings import standings
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import LeagueBot, Rating, RatingHistory, VersionStatus

HASH = "a" * 64


def submitted(db: Database, name: str, games: list[str] | None = None) -> versions.VersionRecord:
    """A version through its build and validation, active."""
    record = versions.start_submission(db, name, games if games is not None else [TEST_GAME], HASH)
    versions.mark_built(db, name, record.number, "b" * 64, ["./bot"], "grpc", {"run": "./bot"}, "built")
    return versions.activate(db, name, record.number, [{"game": TEST_GAME, "passed": True}])


def rating(db: Database, name: str) -> Rating:
    bot_id = bots.get_bot(db, name).id
    with db.read() as session:
        return session.exec(select(Rating).where(Rating.bot_id == bot_id, Rating.game == TEST_GAME)).one()


def play(db: Database, names: list[str], versions_played: list[int | None], winner: int = 0) -> None:
    ticket = mark_running(db, create_match(db, TEST_GAME, names, seed=3).match_id)
    seats = tuple(
        SeatOutcome(seat, bot_id, score=1, rank=1 if seat == winner else 2, version=version)
        for seat, (bot_id, version) in enumerate(zip(ticket.bot_ids, versions_played, strict=True))
    )
    finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))


def test_a_first_submission_creates_a_bot_that_waits_until_its_version_passes(db: Database) -> None:
    record = versions.start_submission(db, "sub", [TEST_GAME], HASH)
    assert (record.number, record.status, record.source) == (1, VersionStatus.BUILDING, "submission")
    waiting = bots.get_bot(db, "sub")
    assert waiting.suspended_reason == WAITING_FOR_FIRST_VERSION and waiting.active_version is None
    assert waiting.command is None
    versions.mark_built(db, "sub", 1, "b" * 64, ["./bot"], "json-lines", {"run": "./bot"}, "log")
    active = versions.activate(db, "sub", 1)
    assert active.status == VersionStatus.ACTIVE and active.activated_at is not None
    bot = bots.get_bot(db, "sub")
    assert bot.active and bot.active_version == 1 and bot.command == ("./bot",)
    runnable = bots.runnables(db, [bot.id])[bot.id]
    assert (runnable.version, runnable.protocol, runnable.build_hash) == (1, "json-lines", "b" * 64)


def test_a_failed_build_changes_nothing_but_the_version(db: Database) -> None:
    submitted(db, "sub")
    second = versions.start_submission(db, "sub", [], HASH)
    before = rating(db, "sub")
    failed = versions.mark_failed(
        db, "sub", second.number, VersionStatus.BUILD_FAILED, "it broke", "error: x"
    )
    assert (failed.status, failed.status_reason, failed.build_log) == ("build_failed", "it broke", "error: x")
    assert bots.get_bot(db, "sub").active_version == 1
    assert versions.get_version(db, "sub", 1).status == VersionStatus.ACTIVE
    assert rating(db, "sub") == before


@pytest.mark.parametrize(
    ("policy", "mu_kept", "sigma_reset"),
    [("keep", True, False), ("reset_sigma", True, True), ("reset", False, True)],
)
def test_a_new_version_moves_the_rating_by_the_games_policy(
    db: Database, policy: str, mu_kept: bool, sigma_reset: bool
) -> None:
    submitted(db, "sub")
    bots.register_bot(db, "rival", [TEST_GAME])
    for _ in range(3):
        play(db, ["sub", "rival"], [1, None])
    played = rating(db, "sub")
    assert played.mu > 25 and played.sigma < 25 / 3
    versions.set_ladder_policy(db, TEST_GAME, policy)
    submitted(db, "sub")
    now = rating(db, "sub")
    assert (now.mu == pytest.approx(played.mu)) is mu_kept
    assert (now.sigma == pytest.approx(25 / 3)) is sigma_reset
    assert now.conservative == pytest.approx(now.mu - 3 * now.sigma)
    assert versions.get_version(db, "sub", 1).status == VersionStatus.RETIRED


def test_a_new_versions_rating_is_what_a_running_ladder_matches_it_by(db: Database) -> None:
    """The matchmaker reads each entrant's rating from its league row: a new version that starts
    its rating again must start it there too, or the ladder seats it by its old version's."""
    submitted(db, "sub")
    bots.register_bot(db, "rival", [TEST_GAME])
    league = leagues.create_league(db, "open", TEST_GAME, ["sub", "rival"], format="ladder", max_matches=50)
    for _ in range(3):
        play(db, ["sub", "rival"], [1, None])
    assert entrant_rating(db, league.id, "sub") == pytest.approx(
        (rating(db, "sub").mu, rating(db, "sub").sigma)
    )
    versions.set_ladder_policy(db, TEST_GAME, "reset")
    submitted(db, "sub")
    assert entrant_rating(db, league.id, "sub") == pytest.approx((25.0, 25 / 3))
    assert entrant_rating(db, league.id, "rival") == pytest.approx(
        (rating(db, "rival").mu, rating(db, "rival").sigma)
    )


def entrant_rating(db: Database, league_id: int, name: str) -> tuple[float, float]:
    bot_id = bots.get_bot(db, name).id
    with db.read() as session:
        row = session.exec(
            select(LeagueBot).where(LeagueBot.league_id == league_id, LeagueBot.bot_id == bot_id)
        ).one()
        return row.mu, row.sigma


def test_matches_and_the_rating_history_record_the_version_that_played(db: Database) -> None:
    submitted(db, "sub")
    bots.register_bot(db, "rival", [TEST_GAME])
    play(db, ["sub", "rival"], [1, None])
    submitted(db, "sub")
    play(db, ["rival", "sub"], [None, 2])
    sub_id = bots.get_bot(db, "sub").id
    with db.read() as session:
        history = session.exec(
            select(RatingHistory.version).where(RatingHistory.bot_id == sub_id).order_by(RatingHistory.id)
        ).all()
    assert history == [1, 2]
    plotted = standings.rating_history(db, TEST_GAME, top=2)["sub"]
    assert [point.version for point in plotted] == [1, 2]


def test_a_rollback_brings_back_only_a_version_that_played(db: Database) -> None:
    submitted(db, "sub")
    submitted(db, "sub")
    rejected = versions.start_submission(db, "sub", [], HASH)
    versions.mark_failed(db, "sub", rejected.number, VersionStatus.REJECTED, "crashed")
    before = snapshot(db)
    for number, said in ((3, "is rejected"), (2, "already the one that plays"), (9, "has no version 9")):
        with pytest.raises(Exception, match=said):
            versions.rollback(db, "sub", number)
    assert snapshot(db) == before
    bot = versions.rollback(db, "sub", 1)
    assert bot.active_version == 1
    assert [v.status for v in versions.list_versions(db, "sub")] == ["rejected", "retired", "active"]


def test_the_admins_commands_are_versions_and_an_edit_keeps_the_old_command(db: Database) -> None:
    bots.register_bot(db, "cmd", [TEST_GAME], ["/usr/bin/true", "a"])
    bots.edit_bot(db, "cmd", command=["/usr/bin/true", "b"])
    bots.edit_bot(db, "cmd", games=[TEST_GAME])  # no new command: no new version
    listed = versions.list_versions(db, "cmd")
    assert [(v.number, v.status, v.source, v.command) for v in listed] == [
        (2, "active", "command", ("/usr/bin/true", "b")),
        (1, "retired", "command", ("/usr/bin/true", "a")),
    ]
    assert bots.get_bot(db, "cmd").active_version == 2


def test_a_remote_bot_takes_no_submission_and_a_new_bot_needs_its_games(db: Database) -> None:
    bots.register_bot(db, "remote", [TEST_GAME])
    before = snapshot(db)
    with pytest.raises(InvalidRequestError, match="is a remote bot"):
        versions.start_submission(db, "remote", [], HASH)
    with pytest.raises(InvalidRequestError, match="needs its games"):
        versions.start_submission(db, "new", [], HASH)
    with pytest.raises(InvalidRequestError, match="unknown policy"):
        versions.set_ladder_policy(db, TEST_GAME, "sometimes")
    assert snapshot(db) == before


def test_versions_left_building_when_the_server_stopped_are_failed(db: Database) -> None:
    versions.start_submission(db, "sub", [TEST_GAME], HASH)
    assert versions.fail_interrupted(db) == 1
    record = versions.get_version(db, "sub")
    assert record.status == VersionStatus.BUILD_FAILED and "submit it again" in record.status_reason


def test_of_two_versions_validated_at_once_the_newer_plays(db: Database) -> None:
    older = versions.start_submission(db, "sub", [TEST_GAME], HASH)
    newer = versions.start_submission(db, "sub", [], HASH)
    for record in (newer, older):
        versions.mark_built(db, "sub", record.number, "b" * 64, ["./bot"], "grpc", {}, "")
    versions.activate(db, "sub", newer.number)
    late = versions.activate(db, "sub", older.number)
    assert (late.status, late.status_reason) == ("retired", "version 2, newer, was activated first")
    assert bots.get_bot(db, "sub").active_version == 2
    assert versions.rollback(db, "sub", 1).active_version == 1


def test_a_new_version_never_changes_the_games_of_the_one_playing(db: Database) -> None:
    """Issue 47: an upload naming more games widened the bot at once, while version 1, validated
    for one game, still played. The games given go to the bot only while no version plays (the
    pipeline gives them when the new version becomes active)."""
    submitted(db, "sub")
    assert bots.get_bot(db, "sub").games == (TEST_GAME,)
    versions.start_submission(db, "sub", [TEST_GAME, "kingdoms"], HASH)
    assert bots.get_bot(db, "sub").games == (TEST_GAME,), "version 1 plays what it was validated for"
    versions.start_submission(db, "fresh", [TEST_GAME], HASH)
    versions.start_submission(db, "fresh", ["kingdoms"], HASH)
    assert bots.get_bot(db, "fresh").games == ("kingdoms",), "nothing plays yet: the newest games"
