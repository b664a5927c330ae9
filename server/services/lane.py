"""The admin lane: a second gRPC server, on a thread and event loop of its own, whose calls run
on the server's main loop (issue 35: Admin calls waited behind 1,000 bots connecting).

gRPC's asyncio server takes new calls one at a time, in arrival order, on its loop: an Admin
call that arrives behind a thousand bots' streams waits for all of them to be accepted. On the
lane it is accepted by a loop that does nothing else, then handed to the main loop as a task of
its own (``asyncio.run_coroutine_threadsafe``), where the servicer runs exactly as it does on the
main server (its state, the leagues, the roster and the pool, lives there). So the call jumps the
main server's accept queue, and nothing of the servicers changes.

Forwarding is generic, by the method handlers the generated ``add_*Servicer_to_server`` makes:

- a unary reply is the main-loop task's result;
- a streamed reply is produced by one main-loop task (so context variables the servicer sets
  hold for the whole stream) and handed over one message at a time;
- streamed requests (``Submit``'s chunks) are read on the lane, one at a time, when the servicer
  on the main loop asks for the next one;
- the servicer's ``context`` is a ``ForwardedContext``: ``abort`` ends the lane's call with its
  status, what it reads (metadata, peer, deadline) is the lane call's;
- a call the client cancels cancels its main-loop task, and the reverse.

Measured while 1,000 bots connect, the hand-over still waits for the main loop, once to start and
once after each database read (its iterations are long while streams start): so the methods that
read only the database and values fixed at start (``add(..., on_lane=...)``) run on the lane's own
loop, with its own thread pool, and never wait for the main one.

May run only what the main server runs: the lane adds no service of its own but Health.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

T = TypeVar("T")
_END = object()
"""The end of a forwarded stream of messages."""


class ForwardedAbort(grpc.aio.AbortError):  # type: ignore[misc]
    """The servicer ended a forwarded call with a status (``ForwardedContext.abort``)."""

    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: Any) -> None:
        super().__init__(code, details)
        self.code, self.details, self.trailing_metadata = code, details, trailing_metadata


class ForwardedContext:
    """The lane call's context as a servicer on the main loop sees it."""

    def __init__(self, context: grpc.aio.ServicerContext, lane: asyncio.AbstractEventLoop) -> None:
        self._context = context
        self._lane = lane

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata: Any = ()) -> NoReturn:
        raise ForwardedAbort(code, details, trailing_metadata)

    async def send_initial_metadata(self, metadata: Any) -> None:
        await _on(self._lane, lambda: self._context.send_initial_metadata(metadata))

    def __getattr__(self, name: str) -> Any:
        # invocation_metadata, peer, auth_context, time_remaining, set_code, ...: plain reads and
        # settings of the call, not of its loop.
        return getattr(self._context, name)


async def _on(loop: asyncio.AbstractEventLoop, work: Callable[[], Awaitable[T]]) -> T:
    """Await what ``work`` makes, made and awaited on another thread's ``loop`` (cancelling
    this cancels it there too)."""

    async def run() -> T:
        return await work()

    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run(), loop))


class _Requests:
    """The lane call's streamed requests, read on the lane as the main loop's servicer asks."""

    def __init__(self, requests: AsyncIterator[Any], lane: asyncio.AbstractEventLoop) -> None:
        self._requests = requests
        self._lane = lane

    def __aiter__(self) -> _Requests:
        return self

    async def __anext__(self) -> Any:
        message = await _on(self._lane, lambda: anext(self._requests, _END))
        if message is _END:
            raise StopAsyncIteration
        return message


@dataclass
class _Forwarder:
    main: asyncio.AbstractEventLoop
    lane: asyncio.AbstractEventLoop
    handed: int = 0
    """Calls handed to the main loop so far."""

    def _hand(self, work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        forwarded = asyncio.run_coroutine_threadsafe(work, self.main)
        self.handed += 1
        return forwarded

    async def call(self, behaviour: Callable[..., Awaitable[T]], request: Any, context: Any) -> T:
        """A unary reply, made on the main loop."""
        forwarded = self._hand(self._made(behaviour, request, context))
        try:
            return await asyncio.wrap_future(forwarded)
        except ForwardedAbort as aborted:
            await context.abort(aborted.code, aborted.details, aborted.trailing_metadata)
            raise
        finally:
            forwarded.cancel()  # the lane's call ended first (cancelled): so does its task

    async def stream(
        self, behaviour: Callable[..., AsyncIterator[T]], request: Any, context: Any
    ) -> AsyncIterator[T]:
        """A streamed reply: one main-loop task makes it, the lane sends each message on."""
        handed: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)

        async def make() -> None:
            proxy = ForwardedContext(context, self.lane)
            async for message in behaviour(self._requests(request), proxy):
                await _on(self.lane, functools.partial(handed.put, message))
            await _on(self.lane, functools.partial(handed.put, _END))

        forwarded = self._hand(make())
        made = asyncio.wrap_future(forwarded)
        taking: asyncio.Future[Any] | None = None
        try:
            while True:
                taking = asyncio.ensure_future(handed.get())
                await asyncio.wait((taking, made), return_when=asyncio.FIRST_COMPLETED)
                if not taking.done():  # it ended (or failed): what it handed over is all there is
                    taking.cancel()
                    made.result()
                    while not handed.empty() and (message := handed.get_nowait()) is not _END:
                        yield message
                    return
                message = taking.result()
                if message is _END:
                    return
                yield message
        except ForwardedAbort as aborted:
            await context.abort(aborted.code, aborted.details, aborted.trailing_metadata)
        finally:
            forwarded.cancel()
            if taking is not None:
                taking.cancel()

    async def _made(self, behaviour: Callable[..., Awaitable[T]], request: Any, context: Any) -> T:
        return await behaviour(self._requests(request), ForwardedContext(context, self.lane))

    def _requests(self, request: Any) -> Any:
        if hasattr(request, "__aiter__"):
            return _Requests(request, self.lane)
        return request

    def handler(self, original: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        """``original``'s handler of the same kind, forwarding its behaviour to the main loop."""
        kind = (original.request_streaming, original.response_streaming)
        behaviour = {
            (False, False): original.unary_unary,
            (False, True): original.unary_stream,
            (True, False): original.stream_unary,
            (True, True): original.stream_stream,
        }[kind]
        make = {
            (False, False): grpc.unary_unary_rpc_method_handler,
            (False, True): grpc.unary_stream_rpc_method_handler,
            (True, False): grpc.stream_unary_rpc_method_handler,
            (True, True): grpc.stream_stream_rpc_method_handler,
        }[kind]
        if kind[1]:

            async def forwarded(request: Any, context: Any) -> Any:  # (gRPC asks for a generator)
                async for message in self.stream(behaviour, request, context):
                    yield message
        else:

            async def forwarded(request: Any, context: Any) -> Any:  # type: ignore[misc]
                return await self.call(behaviour, request, context)

        return make(
            forwarded,
            request_deserializer=original.request_deserializer,
            response_serializer=original.response_serializer,
        )


class _Collected:
    """Stands for a server to a generated ``add_*Servicer_to_server``: keeps what it adds."""

    def __init__(self) -> None:
        self.services: dict[str, dict[str, grpc.RpcMethodHandler]] = {}

    def add_generic_rpc_handlers(self, handlers: Sequence[Any]) -> None:
        pass  # the same handlers come by name next

    def add_registered_method_handlers(
        self, service: str, handlers: dict[str, grpc.RpcMethodHandler]
    ) -> None:
        self.services[service] = handlers


@dataclass
class Listening:
    """Where the lane listens: ``address`` as gRPC takes it, TLS ``credentials`` or None."""

    address: str
    credentials: grpc.ServerCredentials | None = None


class AdminLane:
    """A gRPC server on a thread of its own serving, by forwarding, what ``add`` gives it.

    ``add`` everything, ``await start()`` on the main loop, ``await stop()`` there too."""

    def __init__(self, listening: list[Listening], options: Sequence[tuple[str, Any]]) -> None:
        self.listening = listening
        self.options = list(options)
        self.ports: list[int] = []
        """The port each of ``listening`` took (0 for a Unix socket), once started."""
        self._added: list[tuple[Callable[[Any, Any], None], Any, frozenset[str]]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: grpc.aio.Server | None = None
        self._health: health.aio.HealthServicer | None = None
        self._thread: threading.Thread | None = None
        self._forwarder: _Forwarder | None = None
        self._stopped: asyncio.Event | None = None

    @property
    def handed(self) -> int:
        """Calls the lane has handed to the main loop so far."""
        return self._forwarder.handed if self._forwarder is not None else 0

    def add(
        self, add_to_server: Callable[[Any, Any], None], servicer: Any, on_lane: frozenset[str] = frozenset()
    ) -> None:
        """Serve ``servicer`` (``add_to_server`` is its generated ``add_*Servicer_to_server``).

        The methods named in ``on_lane`` run on the lane's own loop (and its own thread pool),
        not the main one: only those that read the database and values fixed at start, never
        state the main loop changes, may be named."""
        self._added.append((add_to_server, servicer, on_lane))

    async def start(self) -> None:
        main = asyncio.get_running_loop()
        started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._run, args=(main, started), name="admin lane", daemon=True
        )
        self._thread.start()
        try:
            await asyncio.wrap_future(started)
        except BaseException:
            await asyncio.to_thread(self._thread.join)
            self._thread = None
            raise

    def _run(self, main: asyncio.AbstractEventLoop, started: concurrent.futures.Future[None]) -> None:
        asyncio.run(self._serve(main, started))

    async def _serve(self, main: asyncio.AbstractEventLoop, started: concurrent.futures.Future[None]) -> None:
        try:
            self._loop = asyncio.get_running_loop()
            self._stopped = asyncio.Event()
            server = grpc.aio.server(options=self.options)
            forwarder = self._forwarder = _Forwarder(main, self._loop)
            for add_to_server, servicer, on_lane in self._added:
                collected = _Collected()
                add_to_server(servicer, collected)
                for service, handlers in collected.services.items():
                    forwarded = {
                        name: handler if name in on_lane else forwarder.handler(handler)
                        for name, handler in handlers.items()
                    }
                    server.add_generic_rpc_handlers(
                        (grpc.method_handlers_generic_handler(service, forwarded),)
                    )
                    server.add_registered_method_handlers(service, forwarded)
            self._health = health.aio.HealthServicer()
            health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
            for place in self.listening:
                if place.credentials is not None:
                    self.ports.append(server.add_secure_port(place.address, place.credentials))
                else:
                    self.ports.append(server.add_insecure_port(place.address))
            await server.start()
            await self._health.set("", health_pb2.HealthCheckResponse.SERVING)
            self._server = server
        except BaseException as error:
            started.set_exception(error)
            return
        started.set_result(None)
        await self._stopped.wait()

    async def stop(self, grace: float = 2.0) -> None:
        """Stop taking calls, let running ones end within ``grace``, and end the thread."""
        loop, server, thread = self._loop, self._server, self._thread
        if loop is None or thread is None or self._stopped is None:
            return
        self._thread = None

        async def stopping() -> None:
            try:
                if self._health is not None:
                    await self._health.enter_graceful_shutdown()
                if server is not None:
                    await server.stop(grace)
            finally:
                assert self._stopped is not None
                self._stopped.set()

        try:
            await _on(loop, stopping)
        finally:
            await asyncio.to_thread(thread.join)
