"""A match a person played, on the record: spectators watch it live as any match, as late as the
site's delay for people says; `match list
--with-people` lists it and only it, the match page marks it with a badge, and `kingmaker replay
N --verify` replays it to the same end."""

from __future__ import annotations

import json
import random
import sys
import threading
import urllib.request
from pathlib import Path

from play_support import WAIT, Table, play_randomly, setup, stored
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))
from web_support import events

from kingmaker.server.cli import app
from kingmaker.server.web.seat_relay import SeatRelay
from kingmaker.server.web.serve import BackgroundWebServer

runner = CliRunner()


def test_a_match_with_a_person_is_listed_marked_and_replayed(table: Table) -> None:
    relay = SeatRelay(table.client, table.ann, setup("kingsburg", 2))
    state = play_randomly(relay, random.Random(3))
    assert state.end is not None and state.end["end_reason"] == "finished", state.failure
    person = state.match_id
    assert stored(table, person).reasons == ["finished"] * 3
    server = ["--server", table.server.address, "--admin-token", "admin"]
    bots_only = runner.invoke(app, ["match", "run", "kingsburg", "--bot", "rando", "--bot", "randa", *server])
    assert bots_only.exit_code == 0, bots_only.output

    everything = runner.invoke(app, ["match", "list", "--json", *server])
    with_people = runner.invoke(app, ["match", "list", "--with-people", "--json", *server])
    assert with_people.exit_code == 0, with_people.output
    listed = [str(match["match_id"]) for match in json.loads(with_people.stdout)["matches"]]
    assert listed == [person]
    assert len(json.loads(everything.stdout)["matches"]) == 2

    verified = runner.invoke(app, ["replay", person, "--verify", *server])
    assert verified.exit_code == 0, verified.output

    web = BackgroundWebServer(table.server.server.db, admin_address=table.server.address)
    try:
        pages = {}
        for match in json.loads(everything.stdout)["matches"]:
            with urllib.request.urlopen(f"{web.url}/matches/{match['match_id']}") as answer:
                pages[str(match["match_id"])] = answer.read().decode()
    finally:
        web.stop()
    assert 'id="with-people"' in pages.pop(person)
    assert all('id="with-people"' not in page for page in pages.values())


def test_spectators_watch_a_match_with_a_person_live(table: Table) -> None:
    relay = SeatRelay(table.client, table.ann, setup("kingdoms", 2))
    state = relay.wait(0, WAIT)
    while state.request is None:  # the match is running, the person's move awaited
        state = relay.wait(state.version, WAIT)
    web = BackgroundWebServer(table.server.server.db, live=table.server.server.live)
    received: list[tuple[str, object, float]] = []
    try:
        watching = threading.Thread(
            target=lambda: received.extend(events(f"{web.url}/api/matches/{state.match_id}/live"))
        )
        watching.start()
        end = play_randomly(relay, random.Random(4))
        watching.join(WAIT)
    finally:
        web.stop()
    assert end.end is not None and end.end["end_reason"] == "finished"
    kinds = [kind for kind, _, _ in received]
    assert kinds[-1] == "end" and received[-1][1] == {"status": "finished"}, kinds
    steps = [data["step"] for kind, data, _ in received if kind == "frame" and isinstance(data, dict)]
    assert len(steps) >= 3 and steps == sorted(set(steps)), steps


def test_spectators_see_no_move_of_a_person_s_match_before_the_delay(table: Table) -> None:
    """With an hour's delay for people's matches, a spectator who watches a whole match with a
    person is told it is late and has been shown no move of it when it ends."""
    relay = SeatRelay(table.client, table.ann, setup("kingdoms", 2))
    state = relay.wait(0, WAIT)
    while state.request is None:
        state = relay.wait(state.version, WAIT)
    web = BackgroundWebServer(table.server.server.db, live=table.server.server.live, people_delay_s=3600)
    received: list[tuple[str, object, float]] = []
    try:
        stream = events(f"{web.url}/api/matches/{state.match_id}/live")
        received.append(next(stream))  # the note comes at once
        watching = threading.Thread(target=lambda: received.extend(stream), daemon=True)
        watching.start()
        end = play_randomly(relay, random.Random(4))
        assert end.end is not None and end.end["end_reason"] == "finished"
        stored(table, state.match_id)  # every move made and the result written
        seen = list(received)
    finally:
        web.stop()
    assert seen[0][0] == "note" and "a match with a person is shown 3600 s late" in seen[0][1]["text"]  # type: ignore[index]
    assert [kind for kind, _, _ in seen] == ["note"], seen
