"""The console's session and its forms: every POST needs its session's CSRF token (none, or
another session's, is refused and changes nothing); the cookie is HttpOnly and SameSite=Strict,
and Secure when the site is reached over TLS; signing in gives a new session id; signing out
and rotating the token end the sessions that held the old one."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest
from web_support import one_match

from kingmaker.ladder.bots import authors, bots, versions
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.console import sessions as session_store
from kingmaker.server.web.serve import BackgroundWebServer

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


class Browser:
    """A client that keeps the console's cookie, as a browser would."""

    def __init__(self, url: str) -> None:
        address = urlsplit(url)
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 80
        self.cookie = ""

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        sent = dict(headers or {})
        if body is not None:
            sent |= FORM
        if self.cookie:
            sent["Cookie"] = self.cookie
        connection.request(method, path, body=urlencode(body) if body is not None else None, headers=sent)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        found = {name.lower(): value for name, value in response.getheaders()}
        if "set-cookie" in found:
            self.cookie = found["set-cookie"].split(";")[0]
        return response.status, found, text

    def csrf(self, path: str = "/console") -> str:
        status, _, page = self.request("GET", path)
        assert status == 200, page
        found = re.search(r'name="csrf" value="([^"]+)"', page)
        assert found, page
        return found.group(1)

    def sign_in(self, token: str) -> tuple[int, dict[str, str], str]:
        return self.request("POST", "/console/sign-in", {"csrf": self.csrf(), "token": token})


@pytest.fixture
def site(server: BackgroundServer) -> Iterator[dict[str, Any]]:
    db = server.server.db
    ann_author, ann = authors.add_author(db, "ann")
    _, ben = authors.add_author(db, "ben")
    bots.register_bot(db, "annbot", ["kingdoms"], None, author_id=ann_author.id)
    running = BackgroundWebServer(db, admin_address=server.address)
    try:
        yield {"url": running.url, "ann": ann, "ben": ben, "db": db}
    finally:
        running.stop()


def test_the_cookie_is_http_only_and_strict_and_secure_over_tls(site: dict[str, Any]) -> None:
    browser = Browser(site["url"])
    _, headers, _ = browser.request("GET", "/console")
    flags = [flag.strip().lower() for flag in headers["set-cookie"].split(";")]
    assert "httponly" in flags and "samesite=strict" in flags
    assert "secure" not in flags, "plain http: a Secure cookie would never come back"
    # Behind a TLS proxy on loopback (uvicorn trusts its X-Forwarded-Proto): Secure.
    _, headers, _ = Browser(site["url"]).request("GET", "/console", headers={"X-Forwarded-Proto": "https"})
    assert "secure" in [flag.strip().lower() for flag in headers["set-cookie"].split(";")]


def test_signing_in_gives_a_new_session_id(site: dict[str, Any]) -> None:
    browser = Browser(site["url"])
    browser.csrf()
    before = browser.cookie
    status, headers, _ = browser.sign_in(site["ann"])
    assert status == 303 and headers["location"] == "/console"
    assert browser.cookie != before
    status, _, page = browser.request("GET", "/console")
    assert status == 200 and "ann's bots" in page


def test_a_post_without_its_csrf_token_is_refused_and_changes_nothing(site: dict[str, Any]) -> None:
    browser = Browser(site["url"])
    browser.csrf()
    status, _, page = browser.request("POST", "/console/sign-in", {"token": site["ann"]})
    assert status == 403 and "CSRF" in page
    status, _, _ = browser.request("POST", "/console/sign-in", {"token": site["ann"], "csrf": "forged"})
    assert status == 403
    assert browser.request("GET", "/api/console")[0] == 401, "not signed in"

    assert browser.sign_in(site["ann"])[0] == 303
    other = Browser(site["url"])
    foreign = other.csrf()  # another session's token is no better
    for form in ({}, {"csrf": "forged"}, {"csrf": foreign}):
        status, _, _ = browser.request("POST", "/console/rotate", form)
        assert status == 403, form
        status, _, _ = browser.request("POST", "/console/bots/annbot/rollback", {"number": "1", **form})
        assert status == 403, form
    assert authors.authenticate_author(site["db"], site["ann"]) is not None, "the token was not rotated"
    assert versions.list_versions(site["db"], "annbot", 10, None) == []


def test_signing_out_ends_the_session(site: dict[str, Any]) -> None:
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])
    signed_in = browser.cookie
    assert browser.request("POST", "/console/sign-out", {"csrf": browser.csrf()})[0] == 303
    browser.cookie = signed_in  # the old cookie, kept by someone: it opens nothing any more
    assert browser.request("GET", "/api/console")[0] == 401
    status, headers, _ = browser.request("GET", "/console/bots/annbot")
    assert status == 303 and headers["location"] == "/console"


def test_rotating_the_token_shows_the_new_one_once_and_the_old_one_stops(site: dict[str, Any]) -> None:
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])
    elsewhere = Browser(site["url"])
    elsewhere.sign_in(site["ann"])
    status, headers, page = browser.request("POST", "/console/rotate", {"csrf": browser.csrf()})
    assert status == 200 and headers.get("cache-control") == "no-store"
    found = re.search(r'id="new-token".*?<code>([^<]+)</code>\s*</p>', page, re.S)
    assert found, page
    new = found.group(1)
    assert new != site["ann"]
    assert browser.request("GET", "/api/console")[0] == 200, "this session goes on with the new token"
    assert elsewhere.request("GET", "/api/console")[0] == 401, "a session of the old token ended"
    assert Browser(site["url"]).sign_in(site["ann"])[0] == 401
    assert Browser(site["url"]).sign_in(new)[0] == 303


def test_an_author_token_is_needed(site: dict[str, Any], server: BackgroundServer) -> None:
    for token in ("not-a-token", server.admin_token):
        status, _, page = Browser(site["url"]).sign_in(token)
        assert status == 401, page


def test_a_folder_path_that_leaves_the_folder_is_refused(site: dict[str, Any], tmp_path: Path) -> None:
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])
    boundary = "kingmakerboundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{browser.csrf()}\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="bot"\r\n\r\nannbot\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="folder"; filename="bot/../../escape.py"\r\n'
        "Content-Type: text/x-python\r\n\r\nprint(1)\r\n",
        f"--{boundary}--\r\n",
    ]
    body = "".join(parts).encode()
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=120)
    connection.request(
        "POST", "/console/upload", body=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "Cookie": browser.cookie},
    )  # fmt: skip
    response = connection.getresponse()
    text = response.read().decode()
    assert response.status == 400 and "not a plain relative path" in text, text
    assert versions.list_versions(site["db"], "annbot", 10, None) == []


def test_every_match_of_ones_bot_page_by_page_and_none_of_anothers(site: dict[str, Any]) -> None:
    db = site["db"]
    bots.register_bot(db, "rival", ["kingdoms"], None)
    played = [
        one_match(db, "kingdoms", ["annbot", "rival"], seed, stderr=f"ann thinks {seed}")
        for seed in range(22)
    ]
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])
    status, _, body = browser.request("GET", "/api/console/bots/annbot")
    assert status == 200, body
    first = json.loads(body)
    assert len(first["matches"]) == 20 and first["older_matches"]
    status, _, body = browser.request("GET", f"/api/console/bots/annbot?after={first['older_matches']}")
    rest = json.loads(body)
    seen = [int(match["match_id"]) for match in first["matches"] + rest["matches"]]
    assert sorted(seen) == sorted(played) and not rest["older_matches"]
    assert {match["stderr"] for match in first["matches"]} >= {"ann thinks 21", "ann thinks 2"}
    status, _, page = browser.request("GET", f"/console/bots/annbot/matches/{played[0]}")
    assert status == 200 and "ann thinks 0" in page
    ben = Browser(site["url"])
    ben.sign_in(site["ben"])
    for path in ("/api/console/bots/annbot", f"/api/console/bots/annbot/matches/{played[0]}"):
        status, _, body = ben.request("GET", path)
        assert status == 404 and "ann thinks" not in body, body


def test_anonymous_visitors_never_sign_an_author_out(
    site: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43, finding 4: each anonymous GET /console made a server-side session and, past the
    bound, the oldest (signed-in authors) were dropped: 10,400 GETs signed an author out. The
    anonymous pool is bounded (here 40) and separate: it drops only anonymous visitors."""
    monkeypatch.setattr(session_store, "MAX_ANONYMOUS_SESSIONS", 40)
    ann = Browser(site["url"])
    assert ann.sign_in(site["ann"])[0] == 303
    first = Browser(site["url"])
    stale = first.csrf()
    for _ in range(100):
        assert Browser(site["url"]).request("GET", "/console")[0] == 200
    status, _, page = ann.request("GET", "/console")
    assert status == 200 and "ann's bots" in page, "the author is still signed in"
    status, _, page = first.request("POST", "/console/sign-in", {"csrf": stale, "token": site["ann"]})
    assert status == 403, "the first anonymous visitor was dropped: the pool is bounded"


def test_an_author_signing_in_again_and_again_drops_only_their_own_oldest_sessions(
    site: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_store, "MAX_SESSIONS_PER_AUTHOR", 3)
    ben = Browser(site["url"])
    assert ben.sign_in(site["ben"])[0] == 303
    anns = [Browser(site["url"]) for _ in range(5)]
    for browser in anns:
        assert browser.sign_in(site["ann"])[0] == 303
    assert ben.request("GET", "/api/console")[0] == 200, "another author's session stays"
    assert [browser.request("GET", "/api/console")[0] for browser in anns][-3:] == [200, 200, 200]


def test_sign_in_attempts_are_limited_per_address(site: dict[str, Any]) -> None:
    """Guessing tokens from one address: refused after a few tries a minute, with when to try
    again; another address is not held back."""
    guesser = Browser(site["url"])
    here = {"X-Forwarded-For": "203.0.113.7"}  # uvicorn takes a loopback proxy's word for the client

    def attempt(browser: Browser, token: str, address: dict[str, str]) -> tuple[int, dict[str, str], str]:
        csrf = browser.csrf()
        return browser.request("POST", "/console/sign-in", {"csrf": csrf, "token": token}, address)

    answers = [attempt(guesser, f"guess-{n}", here)[0] for n in range(10)]
    assert 429 not in answers and 303 not in answers, answers
    status, headers, page = attempt(guesser, site["ann"], here)
    assert status == 429, "refused even with the right token: the address spent its attempts"
    assert int(headers["retry-after"]) > 0 and "try again in" in page, page
    elsewhere = Browser(site["url"])
    assert attempt(elsewhere, site["ann"], {"X-Forwarded-For": "203.0.113.8"})[0] == 303


def test_an_address_is_counted_alone_an_ipv6_one_with_its_64() -> None:
    from starlette.requests import Request

    from kingmaker.server.web.console.sign_in_limit import SignInLimit, TooManySignIns

    def request(host: str) -> Request:
        return Request({"type": "http", "path": "/", "headers": [], "client": (host, 1)})

    limit = SignInLimit()
    for _ in range(10):
        limit.attempt(request("2001:db8:1:2::7"))
        limit.attempt(request("::ffff:198.51.100.1"))
    with pytest.raises(TooManySignIns):
        limit.attempt(request("2001:db8:1:2:ffff::9"))  # the same /64
    with pytest.raises(TooManySignIns):
        limit.attempt(request("198.51.100.1"))  # the same IPv4 client, seen through a dual-stack socket
    limit.attempt(request("2001:db8:1:3::7"))  # another /64
    limit.attempt(request("::ffff:198.51.100.2"))  # another IPv4 client, not all of them as one /64
