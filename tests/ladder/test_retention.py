"""Retention in the ladder: which versions keep their files, and which are marked pruned."""

from __future__ import annotations

from datetime import timedelta

import pytest
from ladder_support import TEST_GAME
from sqlmodel import select

from kingmaker.ladder.bots import author_bounds, authors, versions
from kingmaker.ladder.errors import BoundReachedError, InvalidRequestError
from kingmaker.ladder.matches.matches import schedule_match
from kingmaker.ladder.storage import retention
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import BotVersion, Competition, CompetitionEntry, MatchSeat, utc_now


def digest(text: str) -> str:
    return (text * 64)[:64]


def versions_of(
    db: Database, bot: str, count: int, author_id: int | None = None, shared_archive: str = ""
) -> None:
    """``count`` versions of ``bot``, each built and activated in turn (the last plays)."""
    for index in range(1, count + 1):
        archive = shared_archive if shared_archive and index in (1, count - 1) else digest(f"a{bot}{index}")
        record = versions.start_submission(db, bot, [TEST_GAME], archive, author_id, archive_bytes=100)
        versions.mark_built(db, bot, record.number, digest(f"b{bot}{index}"), ["./bot"], "grpc", {}, "", 1000)
        versions.activate(db, bot, record.number)


def pruned_numbers(db: Database, bot: str) -> list[int]:
    return [record.number for record in versions.list_versions(db, bot) if record.pruned]


def test_the_active_version_and_the_newest_others_are_kept_the_rest_pruned(db: Database) -> None:
    versions_of(db, "kept", 6)
    with db.transaction() as session:
        files = retention.prune(session, keep=3, bot_name="kept")
    assert [(bot, number) for bot, number, _ in files.versions] == [("kept", 1), ("kept", 2)]
    assert pruned_numbers(db, "kept") == [2, 1]
    assert files.archives == {digest("akept1"), digest("akept2")}
    assert files.builds == {digest("bkept1"), digest("bkept2")}
    assert [freed for _, _, freed in files.versions] == [1100, 1100]
    # The rows stay, with their history; a pruned version cannot come back.
    assert versions.get_version(db, "kept", 1).status == "retired"
    with pytest.raises(InvalidRequestError, match="was pruned"):
        versions.rollback(db, "kept", 1)
    versions.rollback(db, "kept", 3)  # a kept one can
    # Pruning again prunes nothing more: the newest others are 6, 5, 4 now, and 3 is active.
    with db.transaction() as session:
        assert retention.prune(session, keep=3, bot_name="kept").versions == []


def test_a_version_a_match_still_seats_is_needed_and_kept(db: Database) -> None:
    versions_of(db, "seated", 5)
    with db.transaction() as session:
        bot_id = versions.get_version(db, "seated", 1).bot_id
        match = schedule_match(session, game=TEST_GAME, seed=1, options={}, bot_ids=[bot_id])
        seat = session.exec(select(MatchSeat).where(MatchSeat.match_id == match.id)).one()
        seat.version = 1
        session.add(seat)
    with db.read() as session:
        assert (bot_id, 1) in retention.versions_still_needed(session)
        assert (bot_id, 5) in retention.versions_still_needed(session)  # the active one
        assert (bot_id, 2) not in retention.versions_still_needed(session)
    with db.transaction() as session:
        files = retention.prune(session, keep=1, bot_name="seated")
    assert [number for _, number, _ in files.versions] == [2, 3]


def test_a_version_on_its_way_is_kept_and_a_dry_run_marks_nothing(db: Database) -> None:
    versions_of(db, "busy", 3)
    versions.start_submission(db, "busy", [TEST_GAME], digest("anew"))  # version 4, building
    with db.transaction() as session:
        files = retention.prune(session, keep=0, bot_name="busy", dry_run=True)
    assert [number for _, number, _ in files.versions] == [1, 2]
    assert pruned_numbers(db, "busy") == []


def test_a_file_another_kept_version_shares_stays(db: Database) -> None:
    shared = digest("shared")
    versions_of(db, "twin", 4, shared_archive=shared)  # versions 1 and 3 were the same archive
    with db.transaction() as session:
        files = retention.prune(session, keep=1, bot_name="twin")
    assert [number for _, number, _ in files.versions] == [1, 2]
    assert shared not in files.archives  # version 3 keeps it
    assert digest("btwin1") in files.builds


def test_bytes_stored_and_submissions_per_hour_are_bounded_in_one_line(db: Database) -> None:
    ann, _ = authors.add_author(db, "ann")
    authors.set_bot_quota(db, "ann", None, submissions_per_hour=100, stored_bytes=3000)
    versions_of(db, "annbot", 2, author_id=ann.id)  # 2 x (100 + 1000) bytes
    with db.read() as session:
        assert author_bounds.stored_bytes_of(session, ann.id) == 2200
    with pytest.raises(BoundReachedError) as refused:
        versions.check_submitter(db, "annbot", ann.id, 900)
    text = str(refused.value)
    assert "\n" not in text and "bytes stored" in text and "kingmaker prune" in text
    assert "kingmaker author quota ann --stored-mib" in text
    versions.check_submitter(db, "annbot", ann.id, 800)  # fits exactly
    with db.transaction() as session:
        retention.prune(session, keep=0, bot_name="annbot")
    with db.read() as session:
        assert author_bounds.stored_bytes_of(session, ann.id) == 1100  # the active one's
    versions.check_submitter(db, "annbot", ann.id, 1900)
    # Submissions per hour: the two made count; an hour later they do not.
    authors.set_bot_quota(db, "ann", None, submissions_per_hour=2)
    with pytest.raises(BoundReachedError, match=r"submissions per hour: 2\).*--submissions-per-hour N"):
        versions.check_submitter(db, "annbot", ann.id, 0)
    with db.transaction() as session:
        for row in session.exec(select(BotVersion)).all():
            row.created_at -= timedelta(minutes=61)
            session.add(row)
    versions.check_submitter(db, "annbot", ann.id, 0)
    versions.check_submitter(db, "annbot", None, 10**12)  # the admin is not bounded


def test_a_competitions_selected_and_frozen_versions_are_kept_until_it_is_final(db: Database) -> None:
    versions_of(db, "entered", 6)
    bot_id = versions.get_version(db, "entered", 1).bot_id
    with db.transaction() as session:
        now = utc_now()
        cup = Competition(name="cup", game=TEST_GAME, players=2, opens_at=now, closes_at=now, phase="finals")
        session.add(cup)
        session.flush()
        assert cup.id is not None
        session.add(CompetitionEntry(competition_id=cup.id, bot_id=bot_id, position=0, entered_at=now,
                                     selected_version=1, frozen_version=2))  # fmt: skip
    with db.read() as session:
        needed = retention.versions_still_needed(session)
    assert {(bot_id, 1), (bot_id, 2)} <= needed
    with db.transaction() as session:
        files = retention.prune(session, keep=1, bot_name="entered")
    assert [number for _, number, _ in files.versions] == [3, 4]
    with db.transaction() as session:  # once final, its versions are like any others
        row = session.exec(select(Competition).where(Competition.name == "cup")).one()
        row.phase = "final"
        session.add(row)
    with db.transaction() as session:
        files = retention.prune(session, keep=1, bot_name="entered")
    assert [number for _, number, _ in files.versions] == [1, 2]
