"""Notices to authors (issue 47): a row where the news happens (a build failed, a validation
failed, an A/B verdict, a suspension, a competition's deadline a day ahead), read by the author's
feed in the console (``ListNotices``: their own, never another's) and POSTed by the admin's
webhook, in order, its public sentence only, from a thread of its own, each POST bounded in time
and tried a few times. The receiver here is a real HTTP server on loopback, started by a fixture."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
import pytest
from test_console_sessions import Browser

from kingmaker.ladder.bots import authors, bots, notices, versions
from kingmaker.ladder.competitions.competitions import create_competition, enter_competition
from kingmaker.ladder.competitions.deadline_notices import tell_deadlines
from kingmaker.ladder.matches.faults import FAULT_LIMIT
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.services.notice_webhook import NoticeWebhook, WebhookError, check_url
from kingmaker.server.web.serve import BackgroundWebServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

SECRET = "error: /home/ann/secret_plan.py line 3"
"""Why ann's build failed: hers alone."""
WAIT_S = 60.0


class Receiver:
    """A webhook receiver on loopback: keeps every POST's JSON; answers ``failures`` first
    requests with 500; holds each request until ``release`` is set (``hold``)."""

    def __init__(self, failures: int = 0, hold: bool = False) -> None:
        self.posts: list[dict[str, Any]] = []
        self.tries = 0
        self.failures = failures
        self.release = threading.Event()
        if not hold:
            self.release.set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.release.wait(WAIT_S)
                receiver.tries += 1
                if receiver.tries <= receiver.failures:
                    self.send_response(500)
                else:
                    receiver.posts.append(json.loads(body))
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count: int) -> list[dict[str, Any]]:
        deadline = time.monotonic() + WAIT_S
        while len(self.posts) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.posts


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def db(tmp_path: Any) -> Iterator[Database]:
    opened = open_database(f"sqlite:///{tmp_path / 'notices.db'}")
    try:
        yield opened
    finally:
        opened.close()


def people(db: Database) -> dict[str, Any]:
    ann, ann_token = authors.add_author(db, "ann")
    ben, ben_token = authors.add_author(db, "ben")
    bots.register_bot(db, "rival", ["kingdoms"])
    return {"ann": ann.id, "ben": ben.id, "ann_token": ann_token, "ben_token": ben_token}


def news(db: Database, ids: dict[str, Any]) -> None:
    """ann: a build that failed, a validation that failed, an A/B duel lost and one won."""
    failed = versions.start_submission(db, "annbot", ["kingdoms"], "a" * 64, author_id=ids["ann"])
    versions.mark_failed(db, "annbot", failed.number, "build_failed", SECRET)
    rejected = versions.start_submission(db, "annbot", ["kingdoms"], "b" * 64, author_id=ids["ann"])
    versions.mark_built(db, "annbot", rejected.number, "h" * 64, ["true"], "grpc", {}, "built")
    versions.mark_failed(db, "annbot", rejected.number, "rejected", "it crashed in validation")
    good = versions.start_submission(db, "annbot", ["kingdoms"], "c" * 64, author_id=ids["ann"])
    versions.mark_built(db, "annbot", good.number, "h" * 64, ["true"], "grpc", {}, "built")
    versions.activate(db, "annbot", good.number, [])
    for passed, digest in ((False, "d"), (True, "e")):
        duelled = versions.start_submission(db, "annbot", ["kingdoms"], digest * 64, author_id=ids["ann"])
        versions.mark_built(db, "annbot", duelled.number, "h" * 64, ["true"], "grpc", {}, "built")
        versions.mark_testing(db, "annbot", duelled.number, [])
        if passed:
            versions.activate(db, "annbot", duelled.number)
        else:
            versions.mark_failed(db, "annbot", duelled.number, "rejected", "Elo -40 ± 20: weaker")


def suspend(db: Database, bot: str) -> None:
    for seed in range(FAULT_LIMIT):
        ticket = create_match(db, "kingdoms", [bot, "rival"], seed=seed)
        mark_running(db, ticket.match_id)
        seats = (
            SeatOutcome(
                seat=0,
                bot_id=ticket.bot_ids[0],
                score=0,
                rank=2,
                end_reason=EndReason.CRASHED,
                detail="the bot's process exited",
            ),
            SeatOutcome(seat=1, bot_id=ticket.bot_ids[1], score=1, rank=1),
        )
        finish_match(db, MatchOutcome(match_id=ticket.match_id, seats=seats, rules_edition="test"))


def test_each_kind_of_news_is_a_notice_to_its_author_alone(db: Database) -> None:
    ids = people(db)
    news(db, ids)
    bots.register_bot(db, "benbot", ["kingdoms"], ["true"], author_id=ids["ben"])
    now = datetime.now(UTC)
    create_competition(db, "spring", "kingdoms", now + timedelta(hours=5), now)
    enter_competition(db, "spring", "benbot", now)
    suspend(db, "benbot")
    assert tell_deadlines(db, now) == 1
    assert tell_deadlines(db, now + timedelta(minutes=1)) == 0, "told once"
    annals = notices.author_notices(db, ids["ann"], 50)
    assert [(n.kind, n.version) for n in reversed(annals)] == [
        ("build_failed", 1), ("validation_failed", 2), ("ab_verdict", 4), ("ab_verdict", 5),
    ]  # fmt: skip
    assert annals[-1].detail == SECRET and SECRET not in annals[-1].summary
    assert annals[0].summary == "version 5 of annbot passed its A/B duel and plays now"
    assert "did not pass its A/B duel" in annals[1].summary and annals[1].detail.startswith("Elo -40")
    bens = notices.author_notices(db, ids["ben"], 50)
    assert [n.kind for n in bens] == ["deadline_ahead", "suspended"]
    assert bens[1].summary.startswith("benbot was suspended after 3 faults")
    assert "spring closes in about 5 h" in bens[0].summary and "benbot will be frozen" in bens[0].summary
    assert len(notices.author_notices(db, None, 50)) == 6, "the admin reads everyone's"


def test_a_competition_far_ahead_or_closed_tells_nobody(db: Database) -> None:
    ids = people(db)
    bots.register_bot(db, "annbot", ["kingdoms"], ["true"], author_id=ids["ann"])
    now = datetime.now(UTC)
    create_competition(db, "autumn", "kingdoms", now + timedelta(days=3), now)
    enter_competition(db, "autumn", "annbot", now)
    assert tell_deadlines(db, now) == 0
    assert tell_deadlines(db, now + timedelta(days=3, minutes=1)) == 0, "past its deadline"
    assert tell_deadlines(db, now + timedelta(days=2, hours=1)) == 1


def test_the_feed_shows_an_author_their_own_and_nothing_of_anothers(server: BackgroundServer) -> None:
    db = server.server.db
    ids = people(db)
    news(db, ids)

    def metadata(token: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {token}"),)

    with grpc.insecure_channel(server.address) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        ann = stub.ListNotices(admin_pb2.ListNoticesRequest(limit=3), metadata=metadata(ids["ann_token"]))
        assert [n.version for n in ann.notices] == [5, 4, 2] and ann.next_page_token
        older = admin_pb2.ListNoticesRequest(limit=3, page_token=ann.next_page_token)
        assert [n.detail for n in stub.ListNotices(older, metadata=metadata(ids["ann_token"])).notices] == [
            SECRET
        ]
        ben = stub.ListNotices(admin_pb2.ListNoticesRequest(), metadata=metadata(ids["ben_token"]))
        assert list(ben.notices) == []
        with pytest.raises(grpc.RpcError) as refused:
            stub.ListNotices(admin_pb2.ListNoticesRequest())
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    site = BackgroundWebServer(db, admin_address=server.address)
    try:
        for token, shown in ((ids["ann_token"], True), (ids["ben_token"], False)):
            browser = Browser(site.url)
            assert browser.sign_in(token)[0] == 303
            status, _, page = browser.request("GET", "/console/notices")
            assert status == 200
            assert ("secret_plan" in page) is shown and ("did not build" in page) is shown
            status, _, body = browser.request("GET", "/api/console/notices")
            assert status == 200 and len(json.loads(body)["notices"]) == (4 if shown else 0)
    finally:
        site.stop()


def test_the_webhook_posts_each_new_notice_in_order_without_its_detail(
    kingmaker_home: Any, receiver: Receiver
) -> None:
    config = ServerConfig(
        address="127.0.0.1:0", resume_leagues=False, jail=False, notify_webhook=receiver.url
    )
    running = BackgroundServer(config)
    try:
        ids = people(running.server.db)
        news(running.server.db, ids)
        posts = receiver.wait_for(4)
    finally:
        running.stop()
    assert [(p["author"], p["kind"], p["bot"], p["version"]) for p in posts] == [
        ("ann", "build_failed", "annbot", 1), ("ann", "validation_failed", "annbot", 2),
        ("ann", "ab_verdict", "annbot", 4), ("ann", "ab_verdict", "annbot", 5),
    ]  # fmt: skip
    assert all("detail" not in post for post in posts)
    assert "secret_plan" not in json.dumps(posts) and "Elo -40" not in json.dumps(posts)
    assert posts[0]["summary"] == "version 1 of annbot did not build; the version that played plays on"


def test_a_failing_receiver_is_tried_again_and_a_stuck_one_holds_nothing(db: Database) -> None:
    ids = people(db)
    flaky = Receiver(failures=2)
    webhook = NoticeWebhook(db, flaky.url, timeout_s=5, pauses_s=(0.1, 0.1), look_s=0.05)
    webhook.start()
    try:
        news(db, ids)
        assert [post["version"] for post in flaky.wait_for(4)] == [1, 2, 4, 5], "the first after 3 tries"
        assert flaky.tries == 6 and webhook.failed == 0
    finally:
        webhook.stop()
        flaky.stop()
    stuck = Receiver(hold=True)
    webhook = NoticeWebhook(db, stuck.url, timeout_s=0.5, pauses_s=(0.1, 0.1), look_s=0.05)
    webhook.start()
    try:
        failed = versions.start_submission(db, "annbot", ["kingdoms"], "f" * 64, author_id=ids["ann"])
        versions.mark_failed(db, "annbot", failed.number, "build_failed", SECRET)
        deadline = time.monotonic() + WAIT_S
        while webhook.failed < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert webhook.failed == 1 and webhook.sent == 0, "given up after its tries, each bounded"
        assert not stuck.release.is_set() and stuck.tries == 0, "while the receiver was still stuck"
    finally:
        webhook.stop()
        stuck.stop()


@pytest.mark.parametrize("url", ["ftp://example.org/x", "localhost:8000", "http:///nohost", ""])
def test_a_webhook_that_is_no_http_address_is_refused_in_one_line(url: str) -> None:
    with pytest.raises(WebhookError, match="a webhook is an http:// or https:// address with a host"):
        check_url(url)
