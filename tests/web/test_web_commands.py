"""The website from the command line: ``serve --web`` beside a real referee (a match played by two
bot processes shows up, replayable, with the time each decision took), and ``kingmaker web``."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from support import bot_command

KINGMAKER = [sys.executable, "-m", "kingmaker.server.cli"]


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def read_until(process: subprocess.Popen[str], pattern: str, timeout: float = 60) -> re.Match[str]:
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen += line
        found = re.search(pattern, seen)
        if found:
            return found
    raise AssertionError(f"never printed {pattern!r}; printed {seen!r}")


def test_serve_with_web_shows_a_real_match_with_each_decisions_time(tmp_path: Path) -> None:
    environment = {**os.environ, "KINGMAKER_HOME": str(tmp_path), "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    serve = subprocess.Popen(
        [*KINGMAKER, "serve", "--address", "127.0.0.1:0", "--web", "0", "--admin-token", "t"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment,
    )  # fmt: skip
    try:
        address = read_until(serve, r"serving on (\S+)").group(1)
        site = read_until(serve, r"website on (http://127\.0\.0\.1:\d+)").group(1)
        random_bot = " ".join(bot_command("random_bot.py"))
        admin = ["--server", address, "--admin-token", "t"]
        for name in ("a", "b"):
            added = subprocess.run(
                [*KINGMAKER, "bot", "add", name, "-g", "kings_road", "-c", random_bot, *admin],
                capture_output=True, text=True, env=environment, timeout=120, check=False,
            )  # fmt: skip
            assert added.returncode == 0, added.stderr
        played = subprocess.run(
            [*KINGMAKER, "match", "run", "kings_road", *admin, "--seed", "3", "--bot", "a", "--bot", "b"],
            capture_output=True, text=True, env=environment, timeout=120, check=False,
        )  # fmt: skip
        assert played.returncode == 0, played.stderr
        match_id = int(re.search(r"match (\d+)", played.stdout).group(1))  # type: ignore[union-attr]
        match = get_json(f"{site}/api/matches/{match_id}")
        assert match["status"] == "finished"
        assert match["replay"]["final_scores"] == match["replay"]["recorded_scores"]
        step = get_json(f"{site}/api/matches/{match_id}/steps/1?view=0")
        assert [move["source"] for move in step["moves"]] == ["bot", "bot"]
        assert all(isinstance(move["ms"], float) and move["ms"] >= 0 for move in step["moves"])
        assert len(step["observations"]) == 1 and step["svg"].startswith("<svg")
    finally:
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=30) == 0


def test_kingmaker_web_serves_a_database_and_refuses_a_taken_port(tmp_path: Path) -> None:
    from kingmaker.ladder.storage.db import open_database

    url = f"sqlite:///{tmp_path / 'ladder.db'}"
    open_database(url).close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        refused = subprocess.run(
            [*KINGMAKER, "web", "--database-url", url, "--port", str(port)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    assert refused.returncode != 0
    assert "cannot serve the website" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    web = subprocess.Popen(
        [*KINGMAKER, "web", "--database-url", url, "--port", str(free)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        read_until(web, r"kingmaker web on")
        deadline = time.monotonic() + 30
        while True:
            try:
                games = get_json(f"http://127.0.0.1:{free}/api")["games"]
                assert games[0]["name"] == "kingdoms"
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        web.send_signal(signal.SIGINT)
        web.wait(timeout=30)
