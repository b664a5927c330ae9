"""Trial matches (a version's validation and A/B duel matches) were never pruned: a four-game duel
may store 3,200 per version (issue 47). Now they are kept while their version is kept, go with it,
and a kept version keeps its newest ``KEEP_DUEL_MATCHES`` duel matches per game."""

from __future__ import annotations

from ladder_support import TEST_GAME
from sqlmodel import col, select
from test_retention import versions_of

from kingmaker.ladder.matches.compact_logs import pack_log
from kingmaker.ladder.matches.trial_matches import TrialSeat, record_trial
from kingmaker.ladder.storage import retention
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import TrialMatch
from kingmaker.ladder.storage.trial_retention import KEEP_DUEL_MATCHES

OTHER_GAME = "kingsville"


def tried(db: Database, version: int, purpose: str, game: str = TEST_GAME) -> int:
    seats = [TrialSeat("tried", version, 10, 1, "finished"), TrialSeat("random-1", None, 5, 2, "finished")]
    log = pack_log(game, [], [[], []], {})
    return record_trial(db, "tried", version, purpose, game, "edition", 1, {}, seats, log)


def kept(db: Database) -> dict[tuple[int, str, str], list[int]]:
    """The trial matches left, by (version, purpose, game): their ids."""
    found: dict[tuple[int, str, str], list[int]] = {}
    with db.read() as session:
        for row in session.exec(select(TrialMatch).order_by(col(TrialMatch.id))).all():
            assert row.id is not None
            found.setdefault((row.version, row.purpose, row.game), []).append(row.id)
    return found


def test_a_pruned_versions_trials_go_and_a_kept_one_keeps_its_newest_duel_matches(db: Database) -> None:
    versions_of(db, "tried", 6)  # 6 plays; with keep=3, 5, 4 and 3 are kept; 1 and 2 pruned
    for version in range(1, 7):
        tried(db, version, "validation")
        tried(db, version, "validation", OTHER_GAME)
    duels = [tried(db, 6, "duel") for _ in range(KEEP_DUEL_MATCHES + 5)]
    other_duels = [tried(db, 6, "duel", OTHER_GAME) for _ in range(3)]
    before = kept(db)

    with db.transaction() as session:
        dry = retention.prune(session, keep=3, bot_name="tried", dry_run=True)
    assert dry.trial_matches == 4 + 5
    assert kept(db) == before, "a dry run drops nothing"

    with db.transaction() as session:
        pruned = retention.prune(session, keep=3, bot_name="tried")
    assert [number for _, number, _ in pruned.versions] == [1, 2]
    assert pruned.trial_matches == 4 + 5
    after = kept(db)
    assert {version for version, _, _ in after} == {3, 4, 5, 6}
    for version in (3, 4, 5, 6):  # every validation match of a kept version stays
        assert after[(version, "validation", TEST_GAME)] == before[(version, "validation", TEST_GAME)]
        assert after[(version, "validation", OTHER_GAME)] == before[(version, "validation", OTHER_GAME)]
    assert after[(6, "duel", TEST_GAME)] == duels[5:], "the newest duel matches of the game stay"
    assert after[(6, "duel", OTHER_GAME)] == other_duels

    with db.transaction() as session:
        assert retention.prune(session, keep=3, bot_name="tried").trial_matches == 0

    # A trial match of a version pruned already (one stored before this rule) goes at the next prune.
    tried(db, 1, "validation")
    with db.transaction() as session:
        again = retention.prune(session, keep=3, bot_name="tried")
    assert again.versions == [] and again.trial_matches == 1
    assert {version for version, _, _ in kept(db)} == {3, 4, 5, 6}
