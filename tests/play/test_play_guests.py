"""Guests (docs/play.md): a visitor without a token plays under a guest name when the admin
allows it (``serve --guests N``), never when not (the default); at most N guests sit at once;
a guest's seat row is marked as a guest's and their match moves no rating; and the website asks
for a guest seat no more often per address than anyone may try to sign in."""

from __future__ import annotations

import http.cookiejar
import json
import random
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from play_support import WAIT, Table, play_randomly, setup, stored
from sqlmodel import select

from kingmaker.ladder.storage.models import Bot, MatchSeat, Rating
from kingmaker.server.web.console.sign_in_limit import ATTEMPTS
from kingmaker.server.web.seat_relay import SeatRelay, SeatState
from kingmaker.server.web.serve import BackgroundWebServer


def sit(table: Table, guest: str, game: str = "kingdoms") -> tuple[SeatRelay, SeatState]:
    """A guest's table, once the server answered: its first request, or its refusal."""
    relay = SeatRelay(table.client, None, setup(game, 2), guest=guest)
    state = relay.wait(0, WAIT)
    while state.request is None and not relay.over:
        state = relay.wait(state.version, WAIT)
    return relay, state


def ratings(table: Table) -> list[tuple[int, str, float, float]]:
    with table.server.server.db.read() as session:
        rows = session.exec(select(Rating)).all()
        return sorted((r.bot_id, r.game, r.mu, r.sigma) for r in rows)


def test_a_server_takes_no_guests_by_default(table: Table) -> None:
    relay, state = sit(table, "gus")
    assert relay.over and "this server takes no guests" in state.failure


def test_a_guest_plays_marked_unrated_and_the_guest_seats_are_bounded(guest_table: Table) -> None:
    before = ratings(guest_table)
    gus, first = sit(guest_table, "gus")
    assert first.request is not None and first.names[0] == "person:guest:gus"
    gil, refused = sit(guest_table, "gil")
    assert gil.over and "all 1 guest seats are taken" in refused.failure
    end = play_randomly(gus, random.Random(2))
    assert end.end is not None and end.end["end_reason"] == "finished"
    match = stored(guest_table, first.match_id)
    assert not match.rated and match.status_reason.startswith("with people: person:guest:gus")
    with guest_table.server.server.db.read() as session:
        seats = session.exec(
            select(Bot.name).join(MatchSeat).where(MatchSeat.match_id == int(first.match_id))
        ).all()
    assert sorted(seats) == ["person:guest:gus", "randa", "rando"]
    assert ratings(guest_table) == before  # no bot's rating moved
    deadline = time.monotonic() + WAIT  # gus's stream is closing: his seat comes free with it
    while True:
        gil, state = sit(guest_table, "gil")
        if not gil.over or "taken" not in state.failure or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert state.request is not None and state.names[0] == "person:guest:gil"
    gil.leave()


def test_a_guest_name_is_checked(guest_table: Table) -> None:
    relay, state = sit(guest_table, "a:b")
    assert relay.over and "bad guest name 'a:b'" in state.failure


class Browser:
    """Cookies kept, redirects followed; every answer's status and text."""

    def __init__(self, site: str) -> None:
        self.site = site
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )

    def get(self, path: str) -> tuple[int, str]:
        return self._open(urllib.request.Request(self.site + path))

    def post(self, path: str, form: dict[str, Any]) -> tuple[int, str]:
        data = urllib.parse.urlencode(form, doseq=True).encode()
        return self._open(urllib.request.Request(self.site + path, data=data, method="POST"))

    def _open(self, request: urllib.request.Request) -> tuple[int, str]:
        try:
            with self.opener.open(request, timeout=WAIT) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


def csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page[:400]
    return found[1]


def test_a_visitor_sits_down_as_a_guest_on_the_website(guest_table: Table) -> None:
    web = BackgroundWebServer(guest_table.server.server.db, admin_address=guest_table.server.address)
    try:
        visitor = Browser(web.url)
        status, page = visitor.get("/play")
        assert status == 200 and 'id="play-guest"' in page
        status, page = visitor.post("/play/guest", {"csrf": csrf(page), "name": "gus"})
        assert status == 200 and "guest gus" in page and 'id="setup-kingdoms"' in page
        form = {"csrf": csrf(page), "game": "kingdoms", "opponent": ["rando"], "seat": "0"}
        status, page = visitor.post("/play/start", form)
        assert status == 200 and 'id="play"' in page
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            status, body = visitor.get("/api/play")
            view = json.loads(body)
            if view["names"] or view["failure"]:
                break
            time.sleep(0.2)
        assert view["names"] == ["person:guest:gus", "rando"] and not view["failure"]
    finally:
        web.stop()


def test_guest_sign_ins_are_rate_limited_per_address(guest_table: Table) -> None:
    web = BackgroundWebServer(guest_table.server.server.db, admin_address=guest_table.server.address)
    try:
        visitor = Browser(web.url)
        statuses = []
        for attempt in range(ATTEMPTS + 1):
            _, page = visitor.get("/play")
            if 'id="play-guest"' not in page:  # seated already: back to the visitor's form
                visitor.post("/console/sign-out", {"csrf": csrf(page)})
                _, page = visitor.get("/play")
            status, answer = visitor.post("/play/guest", {"csrf": csrf(page), "name": f"g{attempt}"})
            statuses.append(status)
        assert statuses[:ATTEMPTS] == [200] * ATTEMPTS
        assert statuses[-1] == 429 and "too many sign-in attempts" in answer
    finally:
        web.stop()
