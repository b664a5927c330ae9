"""The crowd's door (issue 35): a live stream goes straight to the server (uvicorn) past
Starlette, and everything else (no such match, a bad id, another method or address) to the site; a
crowd coming to a match at once reads its facts once; a watcher who goes away mid-stream
stops its events (their ``finally``: it leaves its channel) while the request ends normally; and a
stream that ends leaves its connection open for the next, as a browser expects of HTTP/1.1."""

from __future__ import annotations

import asyncio
import http.client
import threading
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from test_live_boards import Site

from kingmaker.ladder.errors import NotFoundError
from kingmaker.server.web import live_feed
from kingmaker.server.web.live_channels import LiveWatch


class Client:
    """An ASGI server's side of one request: what was sent, and a disconnect on demand."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.gone = asyncio.Event()
        self.requested = False

    async def receive(self) -> dict[str, Any]:
        if not self.requested:
            self.requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def bodies(self) -> bytes:
        return b"".join(message.get("body", b"") for message in self.sent[1:])


def scope(path: str, method: str = "GET") -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path}


def test_live_streams_skip_the_site_and_the_rest_reach_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def facts(db: Any, match_id: int, people_delay_s: float) -> dict[str, Any]:
        raise NotFoundError(f"no match {match_id}")

    monkeypatch.setattr(live_feed, "_match_facts", facts)

    async def run() -> tuple[list[str], Client]:
        watch = LiveWatch(None, None)  # type: ignore[arg-type]  # nothing is read here
        watch._note(7, "finished")  # a match known to be over: answered from memory
        reached: list[str] = []

        async def site(scope: Any, receive: Any, send: Any) -> None:
            reached.append(f"{scope['method']} {scope['path']}")

        door = live_feed.crowd_door(site, watch)  # type: ignore[arg-type]
        known = Client()
        await door(scope("/api/matches/7/live"), known.receive, known.send)  # type: ignore[arg-type]
        for path, method in [
            ("/api/matches/8/live", "GET"),  # no such match: the site says so
            ("/api/matches/0/live", "GET"),  # a bad id: the site answers 400
            ("/api/matches/7/live", "HEAD"),
            ("/api/matches/7", "GET"),
        ]:
            other = Client()
            await door(scope(path, method), other.receive, other.send)  # type: ignore[arg-type]
        return reached, known

    reached, known = asyncio.run(run())
    assert reached == [
        "GET /api/matches/8/live",
        "GET /api/matches/0/live",
        "HEAD /api/matches/7/live",
        "GET /api/matches/7",
    ]
    assert known.sent[0]["status"] == 200
    assert (b"content-type", b"text/event-stream; charset=utf-8") in known.sent[0]["headers"]
    assert known.bodies() == b'event: end\ndata: {"status":"finished"}\n\n'
    assert known.sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}


def test_a_crowd_coming_at_once_waits_for_one_reading_of_the_facts() -> None:
    read: list[int] = []
    started = threading.Event()
    release = threading.Event()

    def facts() -> dict[str, Any]:
        read.append(9)
        started.set()
        release.wait(30)
        return {"game": "kingdoms"}

    async def run() -> list[dict[str, Any]]:
        watch = LiveWatch(None, None)  # type: ignore[arg-type]
        crowd = [asyncio.ensure_future(watch.read_facts(9, facts)) for _ in range(20)]
        await asyncio.to_thread(started.wait, 30)
        await asyncio.sleep(0.05)  # every one of them waits now
        release.set()
        got = await asyncio.gather(*crowd)
        return [*got, await watch.read_facts(9, facts)]  # and a later one: from memory

    got = asyncio.run(run())
    assert read == [9] and got == [{"game": "kingdoms"}] * 21


def test_a_watcher_who_goes_away_stops_its_events() -> None:
    async def run() -> tuple[list[str], Client]:
        happened: list[str] = []
        forever = asyncio.Event()

        async def events() -> AsyncGenerator[str | bytes, None]:
            try:
                yield "event: frame\ndata: {}\n\n"
                happened.append("waiting")
                await forever.wait()  # a match whose next frame never comes
                yield "never"
            finally:
                happened.append("left its channel")

        client = Client()
        streaming = asyncio.create_task(live_feed.send_events(events(), client.receive, client.send))  # type: ignore[arg-type]
        while "waiting" not in happened:
            await asyncio.sleep(0)
        client.gone.set()
        await asyncio.wait_for(streaming, 30)  # ends, and not cancelled: the request is over
        happened.append("ended" if not streaming.cancelled() else "cancelled")
        return happened, client

    happened, client = asyncio.run(run())
    assert happened == ["waiting", "left its channel", "ended"]
    assert client.bodies() == b"event: frame\ndata: {}\n\n"


def test_one_connection_carries_one_stream_after_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator's browser opens its next stream on the connection the last one used: the
    server must end each stream's body and keep the connection, not close it."""
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    site = Site(tmp_path, "local")
    try:
        played = site.league("kept")
        match_id = site.running_match("kept")
        address = urlsplit(site.url)
        connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=120)
        try:
            bodies, sockets = [], []
            for _ in range(2):  # the running match to its end, then the same match, over
                connection.request("GET", f"/api/matches/{match_id}/live")
                response = connection.getresponse()
                assert response.status == 200 and not response.will_close
                bodies.append(response.read().decode())
                sockets.append(connection.sock)
        finally:
            connection.close()
        played.result(timeout=120)
    finally:
        site.stop()
    assert "event: frame" in bodies[0] and bodies[0].rstrip().endswith('data: {"status":"finished"}')
    assert bodies[1] == 'event: end\ndata: {"status":"finished"}\n\n'
    assert sockets[0] is not None and sockets[1] is sockets[0]  # one connection for both
