"""Many remote instant bots in one process: each connects with its own token on its own stream and
answers every request with legal action 0 at once (as ``sample_bots/instant_bot.py`` does, one
process per bot), so a ladder of 1,000 remote bots costs one process, not a thousand.

    python bench/remote_swarm.py --server HOST:PORT --tokens tokens.json [--report]

Runs until killed. Streams are spread over channels (``PER_CHANNEL`` each), as separate machines'
connections would be. A stream the server refuses for a while (too many waiting to say hello,
unavailable) connects again after a short random pause, as a bot kept running by a loop would.
With ``--report`` it prints ``welcomed N`` once every bot has been welcomed, then, when killed
with SIGTERM, ``refused R cpu S`` (refusals it retried, its own CPU seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import sys
import time
from pathlib import Path

import grpc

from kingmaker.v1 import arena_pb2, arena_pb2_grpc

PER_CHANNEL = 50
RETRIED = (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
"""Refusals a busy server gives (they say: try again shortly)."""


class Counts:
    def __init__(self, bots: int, report: bool) -> None:
        self.bots = bots
        self.report = report
        self.welcomed = 0
        self.refused = 0

    def welcome(self) -> None:
        self.welcomed += 1
        if self.report and self.welcomed == self.bots:
            print(f"welcomed {self.welcomed}", flush=True)


async def bot(stub: arena_pb2_grpc.ArenaStub, token: str, counts: Counts) -> None:
    while True:
        call = stub.Play()
        hello = arena_pb2.Hello(token=token, protocol_version=1, max_concurrent_matches=1)
        try:
            await call.write(arena_pb2.BotMessage(hello=hello))
            while (message := await call.read()) is not grpc.aio.EOF:
                kind = message.WhichOneof("message")
                if kind == "welcome":
                    counts.welcome()
                elif kind == "action_request":
                    request = message.action_request
                    reply = arena_pb2.ActionReply(
                        match_id=request.match_id, request_id=request.request_id, legal_action_index=0
                    )
                    await call.write(arena_pb2.BotMessage(reply=reply))
            return
        except grpc.aio.AioRpcError as error:
            if error.code() not in RETRIED:
                raise
            counts.refused += 1
            await asyncio.sleep(random.uniform(0.2, 1.0))


async def swarm(server: str, tokens: list[str], report: bool) -> None:
    counts = Counts(len(tokens), report)
    loop = asyncio.get_running_loop()
    stopped = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, lambda: stopped.done() or stopped.set_result(None))
    channels = [grpc.aio.insecure_channel(server) for _ in range(0, len(tokens), PER_CHANNEL)]
    stubs = [arena_pb2_grpc.ArenaStub(channel) for channel in channels]
    bots = asyncio.gather(
        *(bot(stubs[index // PER_CHANNEL], token, counts) for index, token in enumerate(tokens))
    )
    await asyncio.wait([bots, stopped], return_when=asyncio.FIRST_COMPLETED)
    if bots.done():
        bots.result()  # a bot failed in a way no retry helps: say so
    if report:
        print(f"refused {counts.refused} cpu {time.process_time():.3f}", flush=True)
    bots.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await bots
    for channel in channels:
        await channel.close(None)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--server", required=True)
    parser.add_argument("--tokens", type=Path, required=True, help="a JSON list of the bots' tokens")
    parser.add_argument("--report", action="store_true", help="say when all are welcomed, and the cost")
    args = parser.parse_args()
    asyncio.run(swarm(args.server, json.loads(args.tokens.read_text()), args.report))
    sys.exit(0)


if __name__ == "__main__":
    main()
