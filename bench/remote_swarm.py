"""Many remote instant bots in one process: each connects with its own token on its own stream and
answers every request with legal action 0 at once (as ``sample_bots/instant_bot.py`` does, one
process per bot), so a ladder of 1,000 remote bots costs one process, not a thousand.

    python bench/remote_swarm.py --server HOST:PORT --tokens tokens.json

Runs until killed. Streams are spread over channels (``PER_CHANNEL`` each), as separate machines'
connections would be.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

import grpc

from kingmaker.v1 import arena_pb2, arena_pb2_grpc

PER_CHANNEL = 50


async def bot(stub: arena_pb2_grpc.ArenaStub, token: str) -> None:
    call = stub.Play()
    hello = arena_pb2.Hello(token=token, protocol_version=1, max_concurrent_matches=1)
    await call.write(arena_pb2.BotMessage(hello=hello))
    while (message := await call.read()) is not grpc.aio.EOF:
        if message.WhichOneof("message") == "action_request":
            request = message.action_request
            reply = arena_pb2.ActionReply(
                match_id=request.match_id, request_id=request.request_id, legal_action_index=0
            )
            await call.write(arena_pb2.BotMessage(reply=reply))


async def swarm(server: str, tokens: list[str]) -> None:
    channels = [grpc.aio.insecure_channel(server) for _ in range(0, len(tokens), PER_CHANNEL)]
    stubs = [arena_pb2_grpc.ArenaStub(channel) for channel in channels]
    await asyncio.gather(*(bot(stubs[index // PER_CHANNEL], token) for index, token in enumerate(tokens)))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--server", required=True)
    parser.add_argument("--tokens", type=Path, required=True, help="a JSON list of the bots' tokens")
    args = parser.parse_args()
    asyncio.run(swarm(args.server, json.loads(args.tokens.read_text())))


if __name__ == "__main__":
    main()
