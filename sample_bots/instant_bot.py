"""A bot that costs (almost) nothing: it answers every request with legal action 0 the moment it
arrives, with the generated messages and plain grpcio, no SDK. The benchmarks use it to measure
the referee and the clock without any bot's own thinking in the way.

Run: ``python -m kingmaker.sample_bots.instant_bot`` with KINGMAKER_SERVER and KINGMAKER_TOKEN set
(``--capacity N`` plays N matches at once).
"""

from __future__ import annotations

import argparse
import os
import queue
from collections.abc import Iterator

import grpc

from kingmaker.v1 import arena_pb2, arena_pb2_grpc


def play(server: str, token: str, capacity: int = 1) -> None:
    outgoing: queue.SimpleQueue[arena_pb2.BotMessage | None] = queue.SimpleQueue()
    hello = arena_pb2.Hello(token=token, protocol_version=1, max_concurrent_matches=capacity)
    outgoing.put(arena_pb2.BotMessage(hello=hello))

    def messages() -> Iterator[arena_pb2.BotMessage]:
        while (message := outgoing.get()) is not None:
            yield message

    with grpc.insecure_channel(server) as channel:
        try:
            for message in arena_pb2_grpc.ArenaStub(channel).Play(messages()):
                if message.WhichOneof("message") == "action_request":
                    request = message.action_request
                    reply = arena_pb2.ActionReply(
                        match_id=request.match_id, request_id=request.request_id, legal_action_index=0
                    )
                    outgoing.put(arena_pb2.BotMessage(reply=reply))
        except grpc.RpcError:
            pass  # the server closed the stream: the bot's work is done
        finally:
            outgoing.put(None)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--capacity", type=int, default=1)
    args = parser.parse_args()
    play(os.environ["KINGMAKER_SERVER"], os.environ["KINGMAKER_TOKEN"], args.capacity)


if __name__ == "__main__":
    main()
