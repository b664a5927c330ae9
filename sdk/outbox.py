"""What a bot sends the server on its stream, in order, and nothing once the server has closed it.

The server closes a stream for flooding (``ERROR_CODE_FLOODING``) and reads nothing more from it;
it then sends each of its matches' ``match_end`` and ends the call. A message written as the call
ends (the ``MatchEndSeen`` for that last ``match_end`` above all) fails in gRPC's asyncio client,
which then reports ``INTERNAL: Internal error from Core`` in place of the status the server sent
(grpc/grpc#36066): the bot's author would be told the wrong reason the stream ended. So nothing
is sent after that error; nothing of it would be read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from kingmaker.v1 import arena_pb2

CLOSING_CODES = frozenset({arena_pb2.ERROR_CODE_FLOODING})
"""The errors after which the server reads nothing more from the stream (docs/protocol.md)."""


@dataclass
class Outbox:
    queue: asyncio.Queue[arena_pb2.BotMessage | None] = field(default_factory=asyncio.Queue)
    closed_by_server: bool = False
    """The server said it reads nothing more: what is put here from then on is dropped."""

    def put(self, message: arena_pb2.BotMessage | None) -> None:
        """Send ``message`` after those before it; None ends the stream's sending side."""
        self.queue.put_nowait(message)

    def heard(self, message: arena_pb2.ServerMessage) -> None:
        """Look at what the server said: an error in ``CLOSING_CODES`` closes this outbox."""
        if message.WhichOneof("message") == "error" and message.error.code in CLOSING_CODES:
            self.closed_by_server = True

    async def messages(self) -> AsyncIterator[arena_pb2.BotMessage]:
        """The request stream of the call: each message put, until None."""
        while (message := await self.queue.get()) is not None:
            if not self.closed_by_server:
                yield message
