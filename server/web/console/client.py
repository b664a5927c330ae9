"""The console's way to the server: the Admin API over gRPC, called with the signed-in author's
own token. Every read and change goes through the permission table and the services the CLI
uses (submissions: their bounds and the jail), so the console can show or do nothing the
author's own `kingmaker` commands could not."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import grpc

from kingmaker.server.services.admin.guests import HEADER as GUEST_HEADER
from kingmaker.v1 import admin_pb2_grpc

CALL_SECONDS = 600.0
"""A submission of a large archive on a loaded server may take minutes; reads take far less."""
WATCH_SECONDS = 3600.0
"""How long one live view of a version may follow it (a long build, then its A/B duel)."""


class ConsoleError(Exception):
    """A call the server refused or could not make: its HTTP status and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


STATUS = {
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
}


class ConsoleClient:
    """One channel to the server's Admin API, shared by every signed-in author."""

    def __init__(self, address: str) -> None:
        self.address = address
        authority = os.environ.get("KINGMAKER_TLS_CA")
        if authority:  # the rule of `kingmaker`'s commands: a server under TLS is trusted by its CA
            with open(authority, "rb") as pem:
                credentials = grpc.ssl_channel_credentials(root_certificates=pem.read())
            self._channel = grpc.secure_channel(address, credentials)
        else:
            self._channel = grpc.insecure_channel(address)
        self._stub = admin_pb2_grpc.AdminStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def call(self, method: str, request: Any, token: str | None, timeout: float = CALL_SECONDS) -> Any:
        try:
            return getattr(self._stub, method)(request, metadata=_metadata(token), timeout=timeout)
        except grpc.RpcError as error:
            raise _refusal(error, self.address) from None

    def play(self, messages: Iterator[Any], token: str | None, guest: str = "") -> Any:
        """A person's ``Play`` stream (``seat_relay``): the call, to read and to cancel; a guest's
        (no token) names the guest."""
        metadata = _metadata(token) if token else ((GUEST_HEADER, guest),) if guest else ()
        return self._stub.Play(messages, metadata=metadata)

    def refusal(self, error: grpc.RpcError) -> ConsoleError:
        return _refusal(error, self.address)

    def stream(self, method: str, request: Any, token: str | None) -> Iterator[Any]:
        try:
            yield from getattr(self._stub, method)(request, metadata=_metadata(token), timeout=WATCH_SECONDS)
        except grpc.RpcError as error:
            raise _refusal(error, self.address) from None


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token else ()


def _refusal(error: grpc.RpcError, address: str) -> ConsoleError:
    code = error.code()
    if code == grpc.StatusCode.UNAVAILABLE:
        return ConsoleError(503, f"the server at {address} does not answer")
    return ConsoleError(STATUS.get(code, 500), error.details() or code.name)
