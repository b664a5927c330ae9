"""Tokens and the admin API: wrong, missing and rotated tokens are refused with the right status;
TLS works when the server is given a certificate (made by the test)."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kingmaker.ladder.bots import bots
from kingmaker.sdk import ConnectionRefused, play
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc, common_pb2

pytestmark = pytest.mark.faults


def hello(address: str, token: str, credentials: grpc.ChannelCredentials | None = None) -> list[object]:
    """Open an Arena stream with this token; return what the server sent, or raise its error."""
    channel = (
        grpc.insecure_channel(address) if credentials is None else grpc.secure_channel(address, credentials)
    )
    with channel:
        first = arena_pb2.BotMessage(hello=arena_pb2.Hello(token=token, protocol_version=1))
        stream = arena_pb2_grpc.ArenaStub(channel).Play(iter([first]), timeout=10)
        received = []
        try:
            for message in stream:
                received.append(message)
                if message.WhichOneof("message") == "welcome":
                    stream.cancel()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                received.append(error)
        return received


@pytest.mark.parametrize("token", ["", "km_not-a-token", "x" * 5000])
def test_a_missing_or_wrong_token_is_refused(server: BackgroundServer, token: str) -> None:
    error_message, status = hello(server.address, token)
    assert error_message.error.code == arena_pb2.ERROR_CODE_UNAUTHENTICATED  # type: ignore[attr-defined]
    assert status.code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]


def test_a_rotated_token_stops_working_and_the_new_one_works(server: BackgroundServer) -> None:
    _, old = bots.register_bot(server.server.db, "remote", ["kingdoms"])
    assert hello(server.address, old)[0].WhichOneof("message") == "welcome"  # type: ignore[attr-defined]
    new = bots.rotate_token(server.server.db, "remote")
    assert hello(server.address, old)[-1].code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
    assert hello(server.address, new)[0].welcome.bot == "remote"  # type: ignore[attr-defined]
    bots.set_enabled(server.server.db, "remote", False)
    # A disabled bot is told so (DISABLED), not that its token is wrong.
    assert hello(server.address, new)[-1].code() == grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]


def test_the_sdk_says_clearly_that_it_was_refused(server: BackgroundServer) -> None:
    with pytest.raises(ConnectionRefused, match="unknown or revoked token"):
        asyncio.run(play(lambda request: 0, server=server.address, token="km_wrong"))


@pytest.mark.parametrize("offered", [None, "wrong", "Bearer"])
def test_the_admin_api_needs_the_admin_token(server: BackgroundServer, offered: str | None) -> None:
    metadata = () if offered is None else (("authorization", f"Bearer {offered}"),)
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            admin.AddBot(admin_pb2.AddBotRequest(name="sneaky", games=["kingdoms"]), metadata=metadata)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert bots.list_bots(server.server.db) == []


def test_a_bot_token_is_not_an_admin_token(server: BackgroundServer) -> None:
    _, token = bots.register_bot(server.server.db, "mere-bot", ["kingdoms"])
    with grpc.insecure_channel(server.address) as channel, pytest.raises(grpc.RpcError) as refused:
        admin_pb2_grpc.AdminStub(channel).ListBots(
            admin_pb2.ListBotsRequest(), metadata=(("authorization", f"Bearer {token}"),)
        )
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kingmaker test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "server.pem", tmp_path / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_server(kingmaker_home: Path, certificate: tuple[Path, Path]) -> Iterator[BackgroundServer]:
    cert, key = certificate
    running = BackgroundServer(ServerConfig(address="127.0.0.1:0", tls_cert=cert, tls_key=key))
    try:
        yield running
    finally:
        running.stop()


def test_tls_serves_both_services_and_refuses_plaintext(
    tls_server: BackgroundServer, certificate: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, _ = certificate
    trusted = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
    metadata = (("authorization", f"Bearer {tls_server.admin_token}"),)
    with grpc.secure_channel(tls_server.address, trusted) as channel:
        games = admin_pb2_grpc.AdminStub(channel).ListGames(admin_pb2.ListGamesRequest(), metadata=metadata)
        # Bots the server launches reach it over its private Unix socket, so matches need no CA.
        random_bot = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
        seats = [admin_pb2.MatchSeat(bot=name, command=random_bot) for name in ("a", "b")]
        record = admin_pb2_grpc.AdminStub(channel).RunMatch(
            admin_pb2.RunMatchRequest(game="kingdoms", seats=seats, seed=2), metadata=metadata
        )
    assert "kingdoms" in [game.name for game in games.games]
    assert [seat.end_reason for seat in record.seats] == [common_pb2.END_REASON_FINISHED] * 2
    _, token = bots.register_bot(tls_server.server.db, "secure", ["kingdoms"])
    assert hello(tls_server.address, token, trusted)[0].welcome.bot == "secure"  # type: ignore[attr-defined]
    # The SDK finds the CA through KINGMAKER_TLS_CA.
    monkeypatch.setenv("KINGMAKER_TLS_CA", str(cert))
    with pytest.raises(ConnectionRefused):
        asyncio.run(play(lambda request: 0, server=tls_server.address, token="km_wrong"))
    # Plaintext gets nowhere.
    with grpc.insecure_channel(tls_server.address) as channel, pytest.raises(grpc.RpcError) as refused:
        admin_pb2_grpc.AdminStub(channel).ListGames(
            admin_pb2.ListGamesRequest(), metadata=metadata, timeout=5
        )
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
