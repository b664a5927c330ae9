"""Every field of every Admin reply, as every kind of caller sees it (``server/services/privacy.py``).

test_permissions.py holds who may make each call; this holds what each reply shows. The table
classifies every field of every message a reply may carry (a field it does not know fails the
first test), and a real server with a bot whose every private field is filled (a version built,
validated with stderr, under an A/B duel, one failed with a host path in its reason; a match with
stderr on both seats) is asked every public call by: no token, the bot's owner, another author,
the bot's own token, and the admin.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from sqlmodel import select
from typer.testing import CliRunner

from kingmaker import sdk
from kingmaker.ladder.bots import authors, bots, versions
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.step_output import StepOutput
from kingmaker.ladder.storage.models import Bot
from kingmaker.sdk.codec import options_from_proto, options_to_proto
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.services.permissions import PERMISSIONS, Rule
from kingmaker.server.services.privacy import (
    DATA_ONLY,
    FIELDS,
    PUBLIC_VERSION_REASONS,
    SUBJECTS,
    Seen,
    redact,
    reply_messages,
)
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

SERVICE = admin_pb2.DESCRIPTOR.services_by_name["Admin"]
HIDDEN = (Seen.PRIVATE, Seen.REWORDED, Seen.OWN_ITEMS)
HOST_PATH = "/tmp/kingmaker-run-k3x9q/build/kingmaker.toml"
TRACEBACK = f'Traceback:\n  File "{sdk.__file__}", line 1, in <module>\n  File "{sys.prefix}/lib/x.py"'
"""What a Python bot's crash prints: where the server installed kingmaker and Python."""
CALLERS = ("anyone", "owner", "other", "bot", "admin")
SEES_ALL = ("owner", "admin")


def test_every_field_of_every_reply_is_classified() -> None:
    replies = {
        message.name: message for method in SERVICE.methods for message in reply_messages(method.output_type)
    }
    for name, message in replies.items():
        assert name in FIELDS, f"{name} (a reply message) is not in privacy.FIELDS: say what of it is private"
        fields = {field.name for field in message.fields}
        assert set(FIELDS[name]) == fields, f"{name}: classify {sorted(fields ^ set(FIELDS[name]))}"
    assert set(FIELDS) == set(replies), "privacy.FIELDS names messages no reply carries"
    for name, field in SUBJECTS.items():
        assert FIELDS[name][field] is Seen.PUBLIC, f"{name}.{field} names its bot: it must be public"
    for name in DATA_ONLY:  # not walked when a reply is shown: nothing in them may be hidden
        assert set(FIELDS[name].values()) == {Seen.PUBLIC}, name
        assert not set(SUBJECTS) & {m.name for m in reply_messages(replies[name])}, name


@pytest.mark.parametrize("owner", [True, False])
def test_an_options_values_keep_their_kind_for_every_caller(owner: bool) -> None:
    """A flag set false read back as an empty text once the reply was shown to an author (the
    texts of every option value were scrubbed, which set the oneof's text): `replay trial:ID`
    refused King's Road's resolved options, "permanent_nobles takes a bool, not ''"."""
    options = {"permanent_nobles": False, "rounds": 0, "variant": ""}
    record = admin_pb2.MatchRecord(match_id="1", options=options_to_proto(options))
    redact(record, lambda bot: owner)
    assert options_from_proto(record.options) == options


def test_a_callers_own_field_is_never_in_a_public_reply() -> None:
    for method in SERVICE.methods:
        if PERMISSIONS[method.name].rule is not Rule.PUBLIC:
            continue
        for message in reply_messages(method.output_type):
            own = [name for name, seen in FIELDS[message.name].items() if seen is Seen.CALLERS]
            assert not own, f"{method.name} is public but its {message.name} carries {own}"


@dataclass
class World:
    server: BackgroundServer
    tokens: dict[str, str | None]
    match_id: int
    home: Path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KINGMAKER_HOME", str(home))
        server = BackgroundServer(ServerConfig(address="127.0.0.1:0", resume_leagues=False))
    try:
        db = server.server.db
        ann, ann_token = authors.add_author(db, "ann", bot_quota=50)
        ben, ben_token = authors.add_author(db, "ben", bot_quota=50)
        _, bot_token = bots.register_bot(db, "annbot", ["kingdoms"], ["./start"], "/srv/annbot", ann.id)
        bots.register_bot(db, "benbot", ["kingdoms"], ["./go"], "/srv/benbot", ben.id)
        match_id = _a_match_with_stderr(db, home)  # before annbot is suspended
        with db.transaction() as session:
            row = session.exec(select(Bot).where(Bot.name == "annbot")).one()
            row.suspended_reason, row.suspended_stderr = "3 faults in its last 5 matches", TRACEBACK
            session.add(row)
        _versions_of_annbot(db, ann.id)
        tokens = {"anyone": None, "owner": ann_token, "other": ben_token, "bot": bot_token}
        yield World(server, {**tokens, "admin": server.admin_token}, match_id, home)
    finally:
        server.stop()


def _versions_of_annbot(db: Any, ann: int) -> None:
    """Version 2 under its A/B duel with everything filled; version 3 failed by the server."""
    version = versions.start_submission(db, "annbot", [], "a" * 64, ann, ab=True)
    manifest = {"build": "make secret-recipe", "run": "./bot --key 42", "language": "c"}
    versions.mark_built(
        db, "annbot", version.number, "b" * 64, ["./bot", "--key", "42"], "grpc", manifest, TRACEBACK
    )
    match = {
        "game": "kingdoms", "players": 2, "seat": 0, "end_reason": EndReason.CRASHED.value,
        "detail": "crashed: exit 3", "stderr_tail": TRACEBACK, "passed": False,
    }  # fmt: skip
    versions.mark_testing(db, "annbot", version.number, [match])
    versions.record_ab(
        db, "annbot", version.number, {"game": "kingdoms", "seeds": 4, "matches": 8, "reason": "so far"}
    )
    failed = versions.start_submission(db, "annbot", [], "c" * 64, ann)
    versions.mark_failed(
        db, "annbot", failed.number, "build_failed",
        f"the server failed while building or validating it: [Errno 2] No such file: {HOST_PATH!r}",
    )  # fmt: skip


def _a_match_with_stderr(db: Any, home: Path) -> int:
    ticket = create_match(db, "kingdoms", ["benbot", "annbot"], seed=5)  # annbot not at seat 0
    mark_running(db, ticket.match_id)
    seats = tuple(
        SeatOutcome(
            seat=seat,
            bot_id=bot_id,
            score=seat,
            rank=2 - seat,
            stderr_tail=TRACEBACK,
            stderr=TRACEBACK,
            stderr_bytes=9,
            strike_log=({"request": 1, "kind": "late", "detail": "x"},),
            detail=f"cannot start: its working directory {home}/builds/abc does not exist",
            exit="exit status 1",
            version=1,
            step_output=(StepOutput(1, TRACEBACK, 9),),
        )
        for seat, bot_id in enumerate(ticket.bot_ids)
    )
    finish_match(db, MatchOutcome(match_id=ticket.match_id, seats=seats, rules_edition="test"))
    return ticket.match_id


# Every public call whose reply carries a field that is not public, with a request about annbot.
CALLS: dict[str, Any] = {
    "GetVersion": lambda world: admin_pb2.GetVersionRequest(bot="annbot", number=2),
    "GetVersion#failed": lambda world: admin_pb2.GetVersionRequest(bot="annbot", number=3),
    "ListVersions": lambda world: admin_pb2.ListVersionsRequest(bot="annbot"),
    "WatchVersion": lambda world: admin_pb2.GetVersionRequest(bot="annbot", number=2),
    "GetBot": lambda world: admin_pb2.GetBotRequest(name="annbot"),
    "ListBots": lambda world: admin_pb2.ListBotsRequest(),
    "GetMatch": lambda world: admin_pb2.GetMatchRequest(match_id=str(world.match_id)),
    "ListMatches": lambda world: admin_pb2.ListMatchesRequest(),
}


def ask(world: World, call: str, caller: str) -> list[Message]:
    """The replies (a stream's first) to this caller; none when the call is refused (a bot's
    token is no caller of the Admin service's)."""
    method = call.partition("#")[0]
    token = world.tokens[caller]
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(world.server.address) as channel:
        stub = getattr(admin_pb2_grpc.AdminStub(channel), method)
        try:
            if SERVICE.methods_by_name[method].server_streaming:
                return [next(iter(stub(CALLS[call](world), metadata=metadata, timeout=120)))]
            return [stub(CALLS[call](world), metadata=metadata, timeout=120)]
        except grpc.RpcError as error:
            refused = error
    assert (caller, refused.code()) == ("bot", grpc.StatusCode.UNAUTHENTICATED), refused
    return []


def shown(message: Message, subject: str = "") -> Iterator[tuple[str, str, str, Any]]:
    """(bot, message, field, value) of every field set that is not public, all the way down."""
    name = message.DESCRIPTOR.name
    subject = getattr(message, SUBJECTS[name]) if name in SUBJECTS else subject
    for field, value in message.ListFields():
        seen = FIELDS[name][field.name]
        if seen is Seen.OWN_ITEMS:  # each item is its own bot's
            yield from (
                (getattr(item, SUBJECTS[item.DESCRIPTOR.name]), name, field.name, item) for item in value
            )
        elif seen in HIDDEN:
            yield subject, name, field.name, value
        if field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        for child in value if field.is_repeated else [value]:
            yield from shown(child, subject)


def test_the_calls_cover_every_public_call_with_hidden_fields() -> None:
    hiding = {
        method.name
        for method in SERVICE.methods
        if PERMISSIONS[method.name].rule is Rule.PUBLIC
        and any(
            seen in HIDDEN
            for message in reply_messages(method.output_type)
            for seen in FIELDS[message.name].values()
        )
    }
    assert hiding == {call.partition("#")[0] for call in CALLS}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_what_each_caller_sees(world: World, call: str) -> None:
    seen = {
        caller: [item for reply in ask(world, call, caller) for item in shown(reply)] for caller in CALLERS
    }
    private = {(bot, message, field) for bot, message, field, _ in seen["admin"] if bot == "annbot"}
    assert private, f"{call}: the admin sees nothing private of annbot: the world is not filled"
    assert {(bot, m, f) for bot, m, f, _ in seen["owner"] if bot == "annbot"} == private
    own = {"other": "benbot"}
    for caller in ("anyone", "other", "bot"):
        for bot, message, field, value in seen[caller]:
            if bot == own.get(caller):
                continue
            assert FIELDS[message][field] is Seen.REWORDED, f"{call}: {caller} sees {bot}'s {message}.{field}"
            assert value in PUBLIC_VERSION_REASONS.values(), f"{call}: {caller} reads {value!r}"


def test_the_owner_sees_every_hidden_field_and_no_host_path(world: World) -> None:
    """Every hidden field of every public reply is filled for the owner somewhere (so the test
    above tried it), and what the owner reads of a server failure names no host folder."""
    owner = [item for call in CALLS for reply in ask(world, call, "owner") for item in shown(reply)]
    filled = {(message, field) for _, message, field, _ in owner}
    hidden = {
        (message.name, name)
        for method in SERVICE.methods
        if PERMISSIONS[method.name].rule is Rule.PUBLIC
        for message in reply_messages(method.output_type)
        for name, seen in FIELDS[message.name].items()
        if seen in HIDDEN
    }
    # A build's live output and clock are filled only while it builds:
    # tests/submissions/test_build_log_streams.py streams one to its owner, another author and
    # anyone, and checks only the owner reads them.
    live = ("build_output", "build_cpu_seconds", "build_cpu_limit", "build_wall_seconds")
    assert hidden - filled == {("VersionInfo", field) for field in live}
    reasons = [value for _, name, field, value in owner if (name, field) == ("VersionInfo", "status_reason")]
    assert any("<run folder>" in reason for reason in reasons), reasons
    install = str(Path(sdk.__file__).resolve().parents[1])
    texts = [str(value) for *_, value in owner]
    assert any("<kingmaker>/sdk/__init__.py" in text for text in texts), texts
    for text in texts:
        for host in (install, sys.prefix, "/tmp/", "kingmaker-run-", os.environ.get("KINGMAKER_HOME", "?")):
            assert host not in text, f"the owner reads a host path ({host}): {text}"


@pytest.mark.parametrize("caller", ["anyone", "other", "owner"])
def test_a_public_text_names_no_host_folder_but_for_the_admin(world: World, caller: str) -> None:
    """A seat's detail is public: a launch error in it names the build's folder in the home."""
    [reply] = ask(world, "GetMatch", caller)
    assert [seat.detail for seat in reply.seats] == [
        "cannot start: its working directory <server home>/builds/abc does not exist"
    ] * 2
    [reply] = ask(world, "GetMatch", "admin")
    assert str(world.home) in reply.seats[0].detail


def test_the_admin_reads_a_bots_texts_as_they_are(world: World) -> None:
    """The admin runs the server: a bot's stderr reaches them whole. (A version's status reason is
    stored for its owner, neutral for everyone; the server's log keeps a failure's whole text.)"""
    [reply] = ask(world, "GetVersion", "admin")
    assert reply.validation[0].stderr_tail == TRACEBACK and reply.build_log == TRACEBACK


def test_the_website_shows_a_version_as_anyone_sees_it(world: World) -> None:
    from kingmaker.server.web.bot_page import bot_page

    page = bot_page(world.server.server.db, "annbot")
    shown = json.dumps(page, default=str)
    assert str(world.home) not in shown and "<server home>/builds/abc" in shown
    for row in page["versions"]:
        assert set(row) <= {"number", "status", "created_at", "built_at", "activated_at", "reason"}, row
        assert row["reason"] in ("", None, *PUBLIC_VERSION_REASONS.values()), row


@pytest.mark.parametrize("who", ["anyone", "other"])
def test_the_command_line_shows_anyone_what_the_server_shows(
    world: World, who: str, config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path))  # no admin token found on the way
    token = world.tokens[who]
    flags = ["--server", world.server.address, *(["--token", token] if token else [])]
    printed = ""
    for command in (
        ["bot", "build-log", "annbot", "2"],
        ["bot", "builds", "annbot"],
        ["bot", "show", "annbot"],
    ):
        result = CliRunner().invoke(app, [*command, *flags])
        assert result.exit_code == 0, result.output
        printed += result.output
    for secret in ("secret-recipe", "--key", "b" * 12, "kingmaker-run-", "Traceback", "<run folder>"):
        assert secret not in printed, f"{who} reads {secret!r}: {printed}"
    assert "its owner's and the admin's" in printed and "its build failed" in printed
    assert "annbot (managed)" in printed
