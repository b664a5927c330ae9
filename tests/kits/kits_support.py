"""Init, build and play a starter kit as the server will once submissions land: the build and
run commands are the kit's own, read from the kingmaker.toml that `kingmaker init` wrote."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc

from kingmaker.kits.languages import language
from kingmaker.kits.manifest import Manifest
from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, common_pb2

FETCH_SECONDS = 900
"""Fetching a kit's packages from the registry (`npm ci`) on a loaded machine."""

OPPONENTS = {
    "kingdoms": "kingmaker.sample_bots.kingdoms.greedy_bot",
    "kings_road": "kingmaker.sample_bots.kings_road.greedy_bot",
    "kingsburg": "kingmaker.sample_bots.kingsburg.heuristic_bot",
    "kingsville": "kingmaker.sample_bots.kingsville.greedy_bot",
}
"""Each game's strongest quick sample bot: the kit's bot plays against it."""


def kingmaker_command() -> list[str]:
    """The `kingmaker` command of this environment (the script beside this interpreter)."""
    return [str(Path(sys.executable).with_name("kingmaker"))]


def init_kit(parent: Path, lang: str) -> Path:
    """`kingmaker init` a kit of ``lang`` into a new folder under ``parent``."""
    folder = parent / f"{lang}-bot"
    done = subprocess.run(
        [*kingmaker_command(), "init", str(folder), "--lang", lang],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"kingmaker init failed: {done.stderr}"
    return folder


def fetch_packages(folder: Path, lang: str) -> None:
    """What the author runs once online before building (`npm ci`): the registry, not the build."""
    command = language(lang).fetch
    if command is not None:
        done = subprocess.run(
            ["sh", "-c", command], cwd=folder, capture_output=True, text=True, timeout=FETCH_SECONDS
        )
        assert done.returncode == 0, f"`{command}` failed in {folder}:\n{done.stderr[-3000:]}"


def bot_command(folder: Path, manifest: Manifest) -> list[str]:
    """The manifest's run command as the server will run it: `python3` is the server's own
    interpreter, a program named by a relative path is the folder's (as `bot add` makes it
    absolute), and a JSON-lines bot gets `kingmaker bridge` in front."""
    argv = list(manifest.run)
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    elif "/" in argv[0]:
        argv[0] = str(folder / argv[0])
    if manifest.protocol == "json-lines":
        argv = [*kingmaker_command(), "bridge", "--", *argv]
    return argv


def opponent(game: str) -> list[str]:
    return [sys.executable, "-m", OPPONENTS[game]]


def run_match(server: BackgroundServer, game: str, seats: list[admin_pb2.MatchSeat]) -> admin_pb2.MatchRecord:
    """One unrated match through the Admin API, with a generous clock for a loaded machine."""
    request = admin_pb2.RunMatchRequest(
        game=game,
        seats=seats,
        seed=11,
        time_control=common_pb2.TimeControl(decision_ms=2000, max_strikes=3),
        unrated=True,
    )
    with grpc.insecure_channel(server.address) as channel:
        record: admin_pb2.MatchRecord = admin_pb2_grpc.AdminStub(channel).RunMatch(
            request, metadata=_admin(server), timeout=600
        )
    return record


def played_cleanly(record: admin_pb2.MatchRecord, seat: int) -> list[str]:
    """What went wrong for ``seat`` (empty when it finished, with no strike, every decision its own)."""
    faults = []
    result = record.seats[seat]
    if result.end_reason != common_pb2.END_REASON_FINISHED:
        faults.append(f"ended {common_pb2.EndReason.Name(result.end_reason)}: {result.detail}")
    if result.strikes:
        faults.append(f"{result.strikes} strikes: {result.detail}")
    # (a stored match of registered bots keeps no sources: "" there; its strikes tell instead)
    sources = {action.source for joint in record.decisions for action in joint.actions if action.seat == seat}
    if sources - {"bot", ""}:
        faults.append(f"decisions not all its own: {sorted(sources)}")
    if result.stderr_tail and faults:
        faults.append(f"stderr: {result.stderr_tail[-1500:]}")
    return faults


@contextmanager
def remote_bot(server: BackgroundServer, folder: Path, command: list[str], name: str) -> Iterator[None]:
    """Register ``name`` as a remote bot and run ``command`` in ``folder`` with its token, as an
    author would on their own machine, until the block ends; wait for its hello first."""
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        games = list(OPPONENTS)
        token = admin.AddBot(admin_pb2.AddBotRequest(name=name, games=games), metadata=_admin(server)).token
        environment = {**os.environ, "KINGMAKER_SERVER": server.address, "KINGMAKER_TOKEN": token}
        log = folder.parent / f"{name}.stderr"
        with log.open("wb") as stderr:
            process = subprocess.Popen(
                command, cwd=folder, env=environment, stdin=subprocess.DEVNULL, stderr=stderr
            )
        try:
            deadline = time.monotonic() + 120
            while not admin.GetBot(admin_pb2.GetBotRequest(name=name), metadata=_admin(server)).connected:
                assert process.poll() is None, f"{name} exited with {process.returncode}: {log.read_text()}"
                assert time.monotonic() < deadline, f"{name} did not connect: {log.read_text()}"
                time.sleep(0.1)
            yield
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def register_opponents(server: BackgroundServer) -> None:
    """Each game's sample bot as a managed bot ``sample-GAME``: a match with a registered bot
    takes registered bots only."""
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        for game in OPPONENTS:
            request = admin_pb2.AddBotRequest(name=f"sample-{game}", games=[game], command=opponent(game))
            admin.AddBot(request, metadata=_admin(server))


def _admin(server: BackgroundServer) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {server.admin_token}"),)
