"""The website at scale: the standings page of a 10,000-bot ladder (bench/standings.py builds the
database the same way), fetched over HTTP from the site on loopback, and loaded in a headless
Chromium (navigation start to the load event), beside the same rows by one raw SQL query; and a
bot's page and its JSON for a bot with 650 and with 10,000 matches, beside the standings page of
the same database. With ``--watchers``: live-stream spectators against the ladder (bench/watchers.py).

    .venv/bin/python bench/web.py [--quick] [--watchers]
"""

from __future__ import annotations

import http.client
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from standings import GAME, build, raw_standings_ms
from table import Row, alternate

from kingmaker.games import serial
from kingmaker.games.registry import get_game
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.web.serve import BackgroundWebServer

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def rows(quick: bool) -> list[Row]:
    runs = 7 if quick else 15
    return _standings_rows(quick, runs) + [row for played in (650, 10_000) for row in _bot_rows(played, runs)]


def _standings_rows(quick: bool, runs: int) -> list[Row]:
    bots, matches = (10_000, 20_000) if quick else (10_000, 100_000)
    folder = Path(tempfile.mkdtemp(prefix="km-web-bench-"))
    path = folder / "big.db"
    build(path, bots, matches)
    db = open_database(f"sqlite:///{path}", upgrade=False)
    site = BackgroundWebServer(db)
    found: list[Row] = []
    size = f"{bots:,} bots"
    try:
        address = urlsplit(site.url)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)

        def fetch(target: str) -> float:
            tick = time.perf_counter()
            connection.request("GET", target)
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200 and b"bot-" in body, response.status
            return (time.perf_counter() - tick) * 1000

        for label, target in (
            ("standings page 1 (HTML)", f"/standings/{GAME}"),
            ("standings page 200, the last (HTML)", f"/standings/{GAME}?page=200"),
            ("standings page 1 (JSON API)", f"/api/standings/{GAME}"),
        ):
            fetch(target)  # warm: templates compiled, connection open
            page, raw = alternate(
                lambda target=target: fetch(target), lambda: raw_standings_ms(path, 50), runs
            )
            found.append(Row("web", f"{label}, {size}", "ms", page, "raw SQL, 50 rows", raw,
                             goal="< 200 ms", met=page.median < 200))  # fmt: skip
        connection.close()
        if shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER):
            found.append(_in_chromium(site.url, size, runs))
    finally:
        site.stop()
        db.close()
        shutil.rmtree(folder, ignore_errors=True)
    return found


def _in_chromium(url: str, size: str, runs: int) -> Row:
    sys.path.insert(0, str(Path(__file__).parent.parent / "tests" / "web"))
    from web_support import start_chromium

    browser = start_chromium()
    try:
        browser.get(f"{url}/standings/{GAME}")

        def load() -> float:
            browser.get(f"{url}/standings/{GAME}")
            timing = browser.execute_script(
                "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime"
            )
            return float(timing)

        def blank() -> float:
            tick = time.perf_counter()
            browser.get("about:blank")
            return (time.perf_counter() - tick) * 1000

        page, empty = alternate(load, blank, runs)
    finally:
        browser.quit()
    return Row("web", f"standings page load in Chromium (to the load event), {size}", "ms", page,
               "about:blank through the driver", empty, goal="< 200 ms", met=page.median < 200)  # fmt: skip


STAR = "star"
"""The bot whose page is measured: it has played every match of the database."""
OPPONENTS = 20


def build_bot_history(path: Path, matches: int) -> None:
    """A database in which bot ``star`` played ``matches`` two-seat Kingdoms matches against 20
    others, as the ladder records them: seats (one in 25 a timeout), match logs the size of a real
    match's (the actions of one random game, timings and digests), rating history for both seats,
    rating and fault rows. Built straight into the tables, like ``standings.build``."""
    open_database(f"sqlite:///{path}").close()  # the schema, migrated
    log = _one_kingdoms_log()
    now = "2026-11-22 00:00:00.000000"
    rng = random.Random(2)
    bots = [STAR] + [f"bot-{i:02d}" for i in range(OPPONENTS)]
    with sqlite3.connect(path) as db:
        db.executemany(
            "INSERT INTO bot (id, name, token_hash, enabled, created_at, token_rotated_at)"
            " VALUES (?,?,?,1,?,?)",
            ((i, name, f"hash-{i}", now, now) for i, name in enumerate(bots, start=1)),
        )
        db.executemany(
            "INSERT INTO botgame (bot_id, game) VALUES (?, ?)", ((i, GAME) for i in range(1, len(bots) + 1))
        )
        played = [0] * (len(bots) + 1)
        seats, history, logs, timeouts = [], [], [], 0
        for match in range(1, matches + 1):
            opponent = 2 + match % OPPONENTS
            fault = match % 25 == 0
            timeouts += fault
            star_wins = not fault and rng.random() < 0.5
            for seat, bot in enumerate((1, opponent)):
                rank = 1 if (seat == 0) == star_wins else 2
                reason = "timeout" if fault and seat == 0 else "finished"
                seats.append((match, seat, bot, rng.randrange(60), rank, rank, 0, reason, reason))
                played[bot] += 1
                mu, sigma = 25 + rng.gauss(0, 2), max(1.0, 8.3 - played[bot] / 200)
                history.append((bot, GAME, match, played[bot], mu, sigma, mu - 3 * sigma, now))
            logs.append((match, GAME, get_game(GAME).spec.edition, match, "{}", *log))
        db.executemany(
            "INSERT INTO match (id, ordinal, game, players, seed, options, status, rated, created_at,"
            " started_at, finished_at) VALUES (?, 0, ?, 2, ?, '{}', 'finished', 1, ?, ?, ?)",
            ((m, GAME, m, now, now, now) for m in range(1, matches + 1)),
        )
        db.executemany(
            "INSERT INTO matchseat (match_id, seat, bot_id, score, game_rank, rank, strikes, end_reason,"
            " detail) VALUES (?,?,?,?,?,?,?,?,?)",
            seats,
        )
        db.executemany(
            "INSERT INTO ratinghistory (bot_id, game, match_id, matches, mu, sigma, conservative,"
            " recorded_at) VALUES (?,?,?,?,?,?,?,?)",
            history,
        )
        db.executemany(
            "INSERT INTO matchlog (match_id, game, rules_edition, seed, options, actions, digests, timings)"
            " VALUES (?,?,?,?,?,?,?,?)",
            logs,
        )
        db.executemany(
            "INSERT INTO rating (bot_id, game, mu, sigma, conservative, matches, wins, rank_sum, faults,"
            " updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            ((i, GAME, 25.0, 2.0, 19.0, played[i], played[i] // 2, 3 * played[i] // 2,
              timeouts if i == 1 else 0, now) for i in range(1, len(bots) + 1)),
        )  # fmt: skip
        if timeouts and "botfault" in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}:
            db.execute(
                "INSERT INTO botfault (bot_id, reason, count, last_match_id) VALUES (1, 'timeout', ?, ?)",
                (timeouts, matches - matches % 25),
            )


def _one_kingdoms_log() -> tuple[str, str, str]:
    """(actions, digests, timings) as JSON, from one random two-seat Kingdoms game."""
    state = get_game(GAME).new(2, 1)
    chooser = random.Random(1)
    actions, timings = [], []
    while not state.is_over():
        joint = {seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()}
        actions.append({str(seat): serial.action_to_data(action) for seat, action in joint.items()})
        timings.append({str(seat): [round(chooser.uniform(0, 40), 1), "bot"] for seat in joint})
        state.apply(joint)
    digests = [[f"{chooser.getrandbits(64):016x}" for _ in range(len(actions) // 2)] for _ in range(2)]
    think = [[round(chooser.uniform(0, 40), 2) for _ in range(len(actions) // 2)] for _ in range(2)]
    times = {"duration_s": 1.5, "think_ms": think, "decisions": timings}
    return json.dumps(actions), json.dumps(digests), json.dumps(times)


def _bot_rows(matches: int, runs: int) -> list[Row]:
    folder = Path(tempfile.mkdtemp(prefix="km-web-bot-"))
    path = folder / "bot.db"
    build_bot_history(path, matches)
    db = open_database(f"sqlite:///{path}", upgrade=False)
    site = BackgroundWebServer(db)
    found: list[Row] = []
    try:
        address = urlsplit(site.url)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)

        def fetch(target: str) -> float:
            tick = time.perf_counter()
            connection.request("GET", target)
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200 and STAR.encode() in body, (response.status, body[:200])
            return (time.perf_counter() - tick) * 1000

        standings = f"/standings/{GAME}"
        for label, target in (
            ("bot page (HTML)", f"/bots/{STAR}"),
            ("bot page (JSON API)", f"/api/bots/{STAR}"),
            ("bot page 10, older matches (JSON API)", f"/api/bots/{STAR}?page=10"),
        ):
            fetch(target)
            fetch(standings)
            page, reference = alternate(lambda target=target: fetch(target), lambda: fetch(standings), runs)
            found.append(Row("web", f"{label}, a bot with {matches:,} matches", "ms", page,
                             f"the standings page, {OPPONENTS + 1} bots", reference, goal="< 50 ms",
                             met=page.median < 50))  # fmt: skip
        connection.close()
    finally:
        site.stop()
        db.close()
        shutil.rmtree(folder, ignore_errors=True)
    return found


if __name__ == "__main__":
    from table import print_rows

    if "--watchers" in sys.argv:  # spectators against the ladder (bench/watchers.py)
        import watchers

        print_rows(watchers.rows("--quick" in sys.argv), "live-stream watchers against the ladder")
    else:
        print_rows(rows("--quick" in sys.argv), "the website at scale")
