"""A bot written from docs/protocol.md and the .proto files alone, as an outside author would.

It uses neither the kingmaker SDK nor the project's generated code: at start-up it compiles
proto/ into descriptors with protoc (grpcio-tools), builds the message classes from them, and
calls ``/kingmaker.v1.Arena/Play`` with plain synchronous grpcio. It unpacks each
``google.protobuf.Any`` by hand (type URL -> message type -> parse the bytes) and answers with
the full action rather than its index, re-packed, to exercise the other kind of reply.

Its play: in every game, prefer any action over passing, and otherwise choose at random.

Run: ``python sample_bots/from_the_doc/bot.py`` with KINGMAKER_SERVER and KINGMAKER_TOKEN set.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import grpc_tools  # type: ignore[import-untyped]  # ships no stubs
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message
from grpc_tools import protoc

PROTO_DIR = Path(os.environ.get("KINGMAKER_PROTO_DIR", Path(__file__).resolve().parents[2] / "proto"))
PLAY = "/kingmaker.v1.Arena/Play"


def load_pool(proto_dir: Path) -> descriptor_pool.DescriptorPool:
    """Every message of every .proto under proto_dir, google/protobuf/any.proto included."""
    sources = sorted(str(path.relative_to(proto_dir)) for path in proto_dir.rglob("*.proto"))
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as scratch:
        descriptor_set = Path(scratch) / "kingmaker.pb"
        arguments = ["protoc", f"-I{proto_dir}", f"-I{well_known}", "--include_imports"]
        if protoc.main([*arguments, f"--descriptor_set_out={descriptor_set}", *sources]) != 0:
            raise SystemExit(f"from-the-doc: protoc could not compile {proto_dir}")
        files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    return pool


class Messages:
    """Message classes by full name, built from the pool on first use."""

    def __init__(self, pool: descriptor_pool.DescriptorPool) -> None:
        self.pool = pool

    def __getitem__(self, full_name: str) -> Any:
        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(full_name))

    def unpack(self, packed: Any) -> Message:
        """An Any's payload: the type URL ends with the message's full name."""
        full_name = packed.type_url.rsplit("/", 1)[-1]
        message: Message = self[full_name].FromString(packed.value)
        return message


def choose(messages: Messages, request: Any) -> Message:
    """The action to play: anything but a pass if there is one, chosen at random."""
    actions = [messages.unpack(packed) for packed in request.legal_actions]
    active = [action for action in actions if action.WhichOneof("action") != "pass"]
    return random.choice(active or actions)


def main() -> int:
    server = os.environ.get("KINGMAKER_SERVER")
    if not server:
        print("from-the-doc: KINGMAKER_SERVER is not set", file=sys.stderr)
        return 2
    messages = Messages(load_pool(PROTO_DIR))
    bot_message, server_message = messages["kingmaker.v1.BotMessage"], messages["kingmaker.v1.ServerMessage"]
    outbox: queue.Queue[Any] = queue.Queue()
    hello = bot_message()
    hello.hello.token = os.environ.get("KINGMAKER_TOKEN", "")
    hello.hello.client = "kingmaker-from-the-doc/0.1 (python, plain grpcio)"
    hello.hello.protocol_version = 1
    outbox.put(hello)

    def outgoing() -> Iterator[Any]:
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(server) as channel:
        play = channel.stream_stream(
            PLAY,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=server_message.FromString,
        )
        try:
            for message in play(outgoing()):
                kind = message.WhichOneof("message")
                if kind == "action_request":
                    request = message.action_request
                    action = choose(messages, request)
                    reply = bot_message()
                    reply.reply.match_id = request.match_id
                    reply.reply.request_id = request.request_id
                    # The chosen action, re-packed: its type URL names the game's Action message.
                    reply.reply.action.type_url = "type.googleapis.com/" + action.DESCRIPTOR.full_name
                    reply.reply.action.value = action.SerializeToString()
                    outbox.put(reply)
                elif kind == "error":
                    print(f"from-the-doc: {message.error.code}: {message.error.message}", file=sys.stderr)
                elif kind == "match_end":
                    end = message.match_end
                    print(
                        f"from-the-doc: match {end.match_id} over (reason {end.end_reason})", file=sys.stderr
                    )
        except grpc.RpcError as error:
            print(f"from-the-doc: stream ended: {error.code().name}: {error.details()}", file=sys.stderr)
            return 2 if error.code() == grpc.StatusCode.UNAUTHENTICATED else 1
        finally:
            outbox.put(None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
