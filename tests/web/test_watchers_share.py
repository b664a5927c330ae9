"""Many spectators of one running match (issue 35): they share one subscription to the server's
live hub; each step sent is encoded once whatever their number, and every watcher gets the same
bytes; the match's facts and its status and secrecy verdict are read once for the crowd (a new
watcher of a watched match reads nothing); every watcher still gets the moves in order and the
match's end; and nothing a seat holds face down reaches the wire."""

from __future__ import annotations

import http.client
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from test_live_boards import Site
from test_live_in_chromium import hidden_values
from web_support import events, spectator_views

from kingmaker.server.live import LiveHub
from kingmaker.server.web import live_channels, live_feed

WATCHERS = 12


def raw_stream(url: str, first_frame: threading.Event | None = None) -> bytes:
    """Everything the stream sent, as bytes, until it ended (``first_frame`` set when a frame came)."""
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    try:
        connection.request("GET", address.path)
        response = connection.getresponse()
        assert response.status == 200
        received = b""
        while chunk := response.read1(1 << 16):
            received += chunk
            if first_frame is not None and b"event: frame" in received:
                first_frame.set()
        return received
    finally:
        connection.close()


def frames_of(received: bytes) -> list[bytes]:
    return [b"event: frame" + part.split(b"\n\n")[0] for part in received.split(b"event: frame")[1:]]


def test_watchers_of_one_match_share_its_frames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(live_channels, "CHECK_S", 3600.0)  # read once: any second read is a new watcher's
    encoded: list[int] = []
    facts_read: list[int] = []
    checks_read: list[int] = []
    subscribed: list[str] = []
    encoder, read_facts, read_checks, add = (
        live_feed._encoder, live_feed._match_facts, live_channels.read_checks, LiveHub._add,
    )  # fmt: skip

    def counting_encoder(facts: dict[str, Any]) -> Any:
        encode = encoder(facts)

        def counting(frame: Any) -> bytes:
            encoded.append(frame.step)
            return encode(frame)

        return counting

    def counting_facts(db: Any, match_id: int, people_delay_s: float) -> dict[str, Any]:
        facts_read.append(match_id)
        return read_facts(db, match_id, people_delay_s)

    def counting_checks(db: Any, match_id: int) -> Any:
        checks_read.append(match_id)
        return read_checks(db, match_id)

    def counting_add(self: LiveHub, subscription: Any) -> None:
        subscribed.append(subscription.match_id)
        add(self, subscription)

    monkeypatch.setattr(live_feed, "_encoder", counting_encoder)
    monkeypatch.setattr(live_feed, "_match_facts", counting_facts)
    monkeypatch.setattr(live_channels, "read_checks", counting_checks)
    monkeypatch.setattr(LiveHub, "_add", counting_add)
    site = Site(tmp_path, "local")
    try:
        played = site.league("crowd")
        match_id = site.running_match("crowd")
        url = f"{site.url}/api/matches/{match_id}/live"
        first_frame = threading.Event()
        with ThreadPoolExecutor(WATCHERS) as pool:
            first = pool.submit(raw_stream, url, first_frame)
            assert first_frame.wait(120)  # the match is watched: the others come to a live channel
            others = [pool.submit(raw_stream, url) for _ in range(WATCHERS - 1)]
            streams = [stream.result() for stream in [first, *others]]
        played.result(timeout=120)
        late = list(events(url))  # a watcher after the end: told so from memory
        expected = spectator_views(site.db, match_id)
        hidden = hidden_values(site.db, match_id)
    finally:
        site.stop()
    sent: dict[int, bytes] = {}
    for received in streams:
        assert received.rstrip().endswith(b'event: end\ndata: {"status":"finished"}')
        steps = []
        for data in frames_of(received):
            frame = json.loads(data.split(b"data: ", 1)[1])
            steps.append(frame["step"])
            assert sent.setdefault(frame["step"], data) == data  # the same bytes for every watcher
            assert frame["view"] == expected[frame["step"]]
            leaked = [secret for secret in hidden[frame["step"]] if secret.encode() in data]
            assert not leaked, (frame["step"], leaked)
        assert steps and steps == sorted(set(steps)), steps
    assert sum(len(secret) > 1 for secret in hidden) > 0  # tiles were held face down: the check can fail
    # One subscription, one read of the facts and of the verdict for the whole crowd, eleven of
    # whom came to a match already watched, and none for the one who came after its end; one
    # encoding per step sent.
    assert subscribed.count(str(match_id)) == 1
    assert facts_read == [match_id] and checks_read == [match_id]
    assert [(kind, data) for kind, data, _ in late] == [("end", {"status": "finished"})]
    assert sorted(encoded) == sorted(sent)
