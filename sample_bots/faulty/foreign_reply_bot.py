"""After a few good replies, answers for requests and matches that are not its own."""

from __future__ import annotations

from kingmaker.sample_bots.faulty.raw import Send, reply, run_faulty
from kingmaker.v1 import arena_pb2


def answer_for_someone_else(request: arena_pb2.ActionRequest, send: Send) -> None:
    message = reply(request)
    message.reply.request_id += 1000
    message.reply.match_id = "someone-elses-match"
    send(message)


if __name__ == "__main__":
    run_faulty(answer_for_someone_else)
