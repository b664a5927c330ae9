"""A worker process of ``process_executor``: a ``MatchHost`` that takes its orders on stdin.

Started by the central server as ``python -m kingmaker.server.execution.process_worker``. It reads the host
settings, starts the host and says so; then it plays each match it is sent (several at once) and
writes back the report, until its stdin closes, when it stops its bots and exits. Every
``LAG_REPORT_S`` it also reports its loop's recent lag, which admission control watches, and it
sends the live frames of the matches the server tells it to ``watch``. Its own output
goes to stderr: stdout carries only the answers.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
from typing import Any

from kingmaker.server import malloc
from kingmaker.server.execution.match_host import MatchHost
from kingmaker.server.execution.process_executor import (
    LAG_NOTICE,
    LAG_REPORT_S,
    LIVE_NOTICE,
    receive_message,
    send_message,
    send_message_now,
)


async def _pipes() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Asyncio streams over stdin and (a private copy of) stdout; fd 1 itself then points at
    stderr, so that nothing else written to stdout can break the answers."""
    answers = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    orders = os.fdopen(0, "rb", buffering=0)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), orders)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, answers)
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


async def serve() -> None:
    malloc.limit_arenas()  # as the central server does: a worker referees for as long
    reader, writer = await _pipes()
    try:
        host = MatchHost(await receive_message(reader))
    except asyncio.IncompleteReadError:
        return  # the server went before it said how to start

    writing = asyncio.Lock()
    running: set[asyncio.Task[None]] = set()
    host.live.bind(asyncio.get_running_loop())
    host.on_frame = lambda frame: send_message_now(writer, (LIVE_NOTICE, True, frame))

    async def answer(request_id: int, kind: str, arguments: list[Any]) -> None:
        try:
            if kind == "play":
                value: Any = await host.play(*arguments)
            elif kind == "watch":
                host.watch(*arguments)
                value = None
            else:
                value = await host.retire(*arguments)
            message = (request_id, True, value)
        except Exception as error:  # reported to the server, which voids and replays the match
            message = (request_id, False, f"{type(error).__name__}: {error}")
        async with writing:
            await send_message(writer, message)

    async def report_lag() -> None:
        while True:
            await asyncio.sleep(LAG_REPORT_S)
            async with writing:
                await send_message(writer, (LAG_NOTICE, True, host.loop_lag.recent_ms()))

    try:
        where = await host.start()
        # As in `serve`: what is built by now lives as long as the worker; keep it out of the
        # garbage collector's full passes, which would otherwise stall every match it referees.
        gc.collect()
        gc.freeze()
        async with writing:
            await send_message(writer, where)
        reporting = asyncio.create_task(report_lag())
        running.add(reporting)
        running.add(asyncio.create_task(malloc.trim_now_and_then()))
        while True:
            try:
                request_id, kind, *arguments = await receive_message(reader)
            except asyncio.IncompleteReadError:
                break  # the server closed our stdin: time to go
            task = asyncio.create_task(answer(request_id, kind, arguments))
            running.add(task)
            task.add_done_callback(running.discard)
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        await host.close()


def main() -> None:
    # Ctrl-C in a terminal reaches the whole process group: the server decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    asyncio.run(serve())


if __name__ == "__main__":
    main()
