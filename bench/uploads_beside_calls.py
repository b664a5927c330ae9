"""Do uploads slow the server for others? ``ListGames`` answered while four 60 MiB archives
arrive at once, beside ``ListGames`` on the same server with nothing arriving (issue 32: 6-12 s
before the upload path left the event loop).

The archives are gzipped tars of random bytes (incompressible: 60 MiB sent, 60 MiB checked),
sent as ``kingmaker submit`` sends them, by the admin (no author bounds), to a server on loopback;
they hold no bot (their builds fail at once, after the upload, and are waited for).

    python bench/uploads_beside_calls.py [--quick]
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from table import Row, alternate, print_rows

from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

UPLOADS = 4
MiB = 1024 * 1024
ARCHIVE_MIB = 60
CHUNK = MiB


def archive() -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz", compresslevel=1) as packed:
        noise = os.urandom(ARCHIVE_MIB * MiB - MiB)
        member = tarfile.TarInfo("noise.bin")
        member.size = len(noise)
        packed.addfile(member, io.BytesIO(noise))
    return data.getvalue()


def chunks(bot: str, payload: bytes) -> Iterator[admin_pb2.SubmitChunk]:
    header = admin_pb2.SubmitHeader(
        bot=bot,
        games=["kingdoms"],
        format="tar.gz",
        size=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
    )
    yield admin_pb2.SubmitChunk(header=header)
    for start in range(0, len(payload), CHUNK):
        yield admin_pb2.SubmitChunk(data=payload[start : start + CHUNK])


class Server:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="km-uploads-"))
        os.environ["KINGMAKER_HOME"] = str(self.folder)
        config = ServerConfig(
            address="127.0.0.1:0", database_url=f"sqlite:///{self.folder / 'ladder.db'}", admin_token="bench",
            resume_leagues=False,
        )  # fmt: skip
        self.server = BackgroundServer(config)
        self.channel = grpc.insecure_channel(
            self.server.address, options=[("grpc.max_send_message_length", 4 * MiB)]
        )
        self.stub = admin_pb2_grpc.AdminStub(self.channel)
        self.metadata = (("authorization", "Bearer bench"),)
        self.payloads = [archive() for _ in range(UPLOADS)]
        self.rounds = 0

    def list_games_ms(self) -> float:
        started = time.perf_counter()
        self.stub.ListGames(admin_pb2.ListGamesRequest(), timeout=120)
        return 1000 * (time.perf_counter() - started)

    def worst_call_during_uploads(self) -> float:
        """The slowest ListGames, called every 50 ms while the uploads arrive (ms)."""
        self.rounds += 1
        done = threading.Event()
        errors: list[BaseException] = []

        def upload(number: int) -> None:
            channel = grpc.insecure_channel(self.server.address)
            try:
                stub = admin_pb2_grpc.AdminStub(channel)
                stub.Submit(
                    chunks(f"up-{self.rounds}-{number}", self.payloads[number]),
                    metadata=self.metadata,
                    timeout=600,
                )
            except grpc.RpcError as error:
                errors.append(error)
            finally:
                channel.close()

        threads = [threading.Thread(target=upload, args=(number,)) for number in range(UPLOADS)]
        for thread in threads:
            thread.start()
        watcher = threading.Thread(target=lambda: ([thread.join() for thread in threads], done.set()))
        watcher.start()
        times = []
        while not done.is_set():
            times.append(self.list_games_ms())
            time.sleep(0.05)
        watcher.join()
        assert not errors, errors[0]
        pipeline = self.server.server.submissions
        assert pipeline is not None
        self.server.run(pipeline.idle())  # their builds (no layout: refused at once) are over
        return max(times)

    def worst_call_alone(self, calls: int = 40) -> float:
        times = []
        for _ in range(calls):
            times.append(self.list_games_ms())
            time.sleep(0.05)
        return max(times)

    def close(self) -> None:
        self.channel.close()
        self.server.stop()


def rows(quick: bool) -> list[Row]:
    server = Server()
    try:
        during, alone = alternate(
            server.worst_call_during_uploads, server.worst_call_alone, 3 if quick else 5
        )
    finally:
        server.close()
    what = f"slowest ListGames while {UPLOADS} archives of {ARCHIVE_MIB} MiB arrive at once"
    return [
        Row(
            "uploads",
            what,
            "ms",
            during,
            "nothing arriving",
            alone,
            goal="< 1,000 ms",
            met=during.median < 1000,
        )
    ]


if __name__ == "__main__":
    print_rows(rows("--quick" in sys.argv), "uploads beside other calls")
    print(f"load average (1/5/15 min): {'/'.join(f'{value:.1f}' for value in os.getloadavg())}")
