"""Bots: registration, tokens (hashed, rotatable), disabling, and every refusal changing nothing."""

from __future__ import annotations

import threading

import pytest
from ladder_support import TEST_GAME, snapshot

from kingmaker.ladder.bots.bots import (
    authenticate,
    get_bot,
    list_bots,
    register_bot,
    retire_bot,
    rotate_token,
    set_enabled,
    token_holder,
    token_holders,
)
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, LadderError, NotFoundError
from kingmaker.ladder.matches.match_reads import get_match
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.ratings.standings import standings
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus


def test_a_managed_bot_is_registered_with_its_command(db: Database) -> None:
    info, _ = register_bot(
        db, "greedy", [TEST_GAME], command=["python", "bot.py", "--fast"], working_dir="/srv/b"
    )
    assert info.command == ("python", "bot.py", "--fast")
    assert info.working_dir == "/srv/b"
    assert info.managed
    assert info.active
    assert get_bot(db, "greedy") == info


def test_a_remote_bot_has_no_command(db: Database) -> None:
    info, _ = register_bot(db, "far_away", [TEST_GAME])
    assert info.command is None
    assert not info.managed


def test_the_token_is_256_random_bits_and_only_its_hash_is_stored(db: Database) -> None:
    _, token = register_bot(db, "secretive", [TEST_GAME])
    _, other = register_bot(db, "other", [TEST_GAME])
    assert token.startswith("km_")
    assert len(token) - 3 >= 43  # 32 bytes in URL-safe base64
    assert token != other
    dump = repr(snapshot(db))
    assert token not in dump
    assert token[3:] not in dump


def test_authenticate_finds_the_bot_by_token(db: Database) -> None:
    info, token = register_bot(db, "alice", [TEST_GAME])
    assert authenticate(db, token) == info
    assert authenticate(db, token + "x") is None
    assert authenticate(db, "") is None


def test_token_holders_reads_many_tokens_at_once_as_token_holder_reads_each(db: Database) -> None:
    _, alice = register_bot(db, "alice", [TEST_GAME, "kingdoms"])
    _, bob = register_bot(db, "bob", [TEST_GAME])
    _, carol = register_bot(db, "carol", [TEST_GAME])
    _, dave = register_bot(db, "dave", [TEST_GAME])
    set_enabled(db, "bob", False)  # disabled: found, so it can be told why it may not play
    retire_bot(db, "carol")  # removed: never admitted again
    rotated = rotate_token(db, "dave")
    asked = [alice, bob, carol, dave, rotated, alice + "x", ""]
    found = token_holders(db, asked)
    assert found == {token: info for token in asked if (info := token_holder(db, token)) is not None}
    assert {token: info.name for token, info in found.items()} == {
        alice: "alice",
        bob: "bob",
        rotated: "dave",
    }
    assert found[alice].games == tuple(sorted([TEST_GAME, "kingdoms"]))
    listed = list_bots(db)  # read as token_holders reads: games and authors in one query each
    assert listed == [get_bot(db, bot.name) for bot in listed]


def test_rotating_the_token_retires_the_old_one(db: Database) -> None:
    info, old = register_bot(db, "alice", [TEST_GAME])
    new = rotate_token(db, "alice")
    assert new != old
    assert authenticate(db, old) is None
    found = authenticate(db, new)
    assert found is not None
    assert found.id == info.id


def test_a_disabled_bot_cannot_authenticate_keeps_history_and_loses_waiting_matches(
    db: Database,
) -> None:
    _, token = register_bot(db, "alice", [TEST_GAME])
    register_bot(db, "bob", [TEST_GAME])
    match = create_match(db, TEST_GAME, ["alice", "bob"], seed=1)
    set_enabled(db, "alice", False)
    assert authenticate(db, token) is None
    assert get_match(db, match.match_id).status == MatchStatus.CANCELLED
    assert "alice" in [row.bot for row in standings(db, TEST_GAME)]
    assert not get_bot(db, "alice").active
    set_enabled(db, "alice", True)
    assert authenticate(db, token) is not None


def test_list_bots_by_game(db: Database) -> None:
    register_bot(db, "b", [TEST_GAME, "kingdoms"])
    register_bot(db, "a", [TEST_GAME])
    assert [bot.name for bot in list_bots(db)] == ["a", "b"]
    assert [bot.name for bot in list_bots(db, "kingdoms")] == ["b"]
    assert get_bot(db, "b").games == ("dice_duel", "kingdoms")


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"name": "taken", "games": [TEST_GAME]}, ConflictError, "already exists"),
        ({"name": "new", "games": ["chess"]}, InvalidRequestError, "unknown game 'chess'"),
        ({"name": "new", "games": []}, InvalidRequestError, "at least one game"),
        ({"name": "bad name!", "games": [TEST_GAME]}, InvalidRequestError, "bad bot name"),
        ({"name": "new", "games": [TEST_GAME], "command": "python bot.py"}, InvalidRequestError, "argv"),
        ({"name": "new", "games": [TEST_GAME], "command": []}, InvalidRequestError, "non-empty"),
        ({"name": "new", "games": [TEST_GAME], "working_dir": "/x"}, InvalidRequestError, "managed"),
    ],
)
def test_refused_registrations_change_nothing(
    db: Database, kwargs: dict[str, object], error: type[LadderError], words: str
) -> None:
    register_bot(db, "taken", [TEST_GAME])
    before = snapshot(db)
    with pytest.raises(error, match=words):
        register_bot(db, **kwargs)  # type: ignore[arg-type]
    assert snapshot(db) == before


def test_unknown_bots_are_not_found_and_nothing_changes(db: Database) -> None:
    before = snapshot(db)
    for call in (
        lambda: rotate_token(db, "ghost"),
        lambda: set_enabled(db, "ghost", False),
        lambda: get_bot(db, "ghost"),
    ):
        with pytest.raises(NotFoundError, match="ghost"):
            call()
    assert snapshot(db) == before


def test_registering_the_same_name_from_many_threads_keeps_exactly_one(db: Database) -> None:
    outcomes: list[str] = []

    def attempt() -> None:
        try:
            register_bot(db, "racer", [TEST_GAME])
            outcomes.append("registered")
        except ConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 5 + ["registered"]
    assert [bot.name for bot in list_bots(db)] == ["racer"]
