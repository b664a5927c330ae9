"""Addresses are parsed and checked in one place (``server/addresses.py``) before anything starts:
`serve --address`, `--server` of the client commands and `$KINGMAKER_SERVER`, and the website's
host. Before, gRPC read `serve --address 127.0.0.1:99999` as port 34463, `:65536` as a free port
and `:-1` as 65535, and listened there."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.server.addresses import Address, AddressError, check_host, parse_address
from kingmaker.server.app import KingmakerServer, ListenError, ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

runner = CliRunner()
SOCKET = "/tmp/kingmaker.sock"


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("127.0.0.1:50051", Address(host="127.0.0.1", port=50051)),
        ("localhost:1", Address(host="localhost", port=1)),
        ("bots.example.org:65535", Address(host="bots.example.org", port=65535)),
        ("[::1]:50051", Address(host="::1", port=50051)),
        ("[fe80::1%eth0]:80", Address(host="fe80::1%eth0", port=80)),
        (f"unix:{SOCKET}", Address(path=SOCKET)),
        ("unix:relative.sock", Address(path="relative.sock")),
    ],
)
def test_good_addresses_parse_and_print_as_grpc_takes_them(text: str, parsed: Address) -> None:
    assert parse_address(text) == parsed
    assert str(parsed) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("127.0.0.1:99999", "the port must be a number from 1 to 65535, not '99999'"),
        ("127.0.0.1:65536", "the port must be a number from 1 to 65535"),
        ("127.0.0.1:-1", "not '-1'"),
        ("127.0.0.1:0", "from 1 to 65535, not '0'"),
        ("127.0.0.1:", "not ''"),
        ("127.0.0.1:5o", "not '5o'"),
        ("127.0.0.1:٥٥", "not '٥٥'"),
        (":65536", "the port must be"),
        (":50051", "has no host"),
        ("127.0.0.1", "has no port"),
        ("[::1]", "has no port"),
        ("::1:50051", "an IPv6 address goes in brackets"),
        ("[127.0.0.1]:1", "in brackets is not an IPv6 address"),
        ("[::1:1", "an IPv6 address goes in brackets"),
        ("999.0.0.1:1", "'999.0.0.1' is not an IPv4 address"),
        ("a b:1", "'a b' is not a host name"),
        ("-bad-.org:1", "is not a host name"),
        ("http://127.0.0.1:1", "without a scheme"),
        ("unix:", "has no socket path"),
        ("unix:/" + "x" * 107, "the socket path is 108 bytes long, more than the 107"),
    ],
)
def test_bad_addresses_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(AddressError) as refused:
        parse_address(text)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_only_a_server_may_ask_for_port_0_and_a_tcp_address_may_not_be_a_socket() -> None:
    assert parse_address("127.0.0.1:0", listening=True).port == 0
    with pytest.raises(AddressError, match="must be a TCP address"):
        parse_address(f"unix:{SOCKET}", unix=False)


def test_a_host_to_listen_on_takes_names_and_both_ip_versions() -> None:
    assert [check_host(host) for host in ("127.0.0.1", "::1", "0.0.0.0", "localhost")] == [
        "127.0.0.1", "::1", "0.0.0.0", "localhost",
    ]  # fmt: skip
    for bad in ("", "a b", "[::1]", "127.0.0.1:80", "300.1.1.1"):
        with pytest.raises(AddressError):
            check_host(bad)


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:-1", ":65536", "127.0.0.1", "::1:0", "unix:"],
)
def test_serve_refuses_a_bad_address_in_one_line_and_starts_nothing(tmp_path: Path, address: str) -> None:
    home = tmp_path / "home"
    environment = {**os.environ, "KINGMAKER_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "kingmaker", "serve", "--address", address],
        env=environment, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: Invalid value for '--address'") and repr(address) in line
    assert done.stdout == ""
    assert not home.exists()


def test_a_server_given_a_bad_address_in_code_refuses_too(kingmaker_home: Path) -> None:
    server = KingmakerServer(ServerConfig(address="127.0.0.1:99999"))
    try:
        with pytest.raises(ListenError, match="the port must be a number from 0 to 65535"):
            asyncio.run(server.start())
    finally:
        asyncio.run(server.stop())


@pytest.mark.parametrize(
    "args",
    [
        ["bot", "list", "--server", "127.0.0.1:99999"],
        ["ladder", "kingdoms", "-s", "127.0.0.1"],
        ["match", "show", "1", "--server", "[::1]"],
        ["bridge", "--server", "localhost:-1", "--", "true"],
        ["web", "--host", "not a host"],
        ["serve", "--web-host", "127.0.0.1:8080"],
        ["serve", "--executor", "ray", "--ray-address", f"unix:{SOCKET}"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_every_address_option_refuses_a_bad_address_in_one_line(
    kingmaker_home: Path, args: list[str]
) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: Invalid value for")


def test_a_bad_kingmaker_server_variable_is_one_line(
    kingmaker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_SERVER", "127.0.0.1:99999")
    result = runner.invoke(app, ["bot", "list", "--admin-token", "t"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: $KINGMAKER_SERVER: '127.0.0.1:99999': the port must be a number from 1 to 65535, not '99999'"
    )


def test_a_server_on_ipv6_loopback_is_reached_by_its_bracketed_address(kingmaker_home: Path) -> None:
    server = BackgroundServer(ServerConfig(address="[::1]:0"))
    try:
        assert server.address.startswith("[::1]:")
        result = runner.invoke(app, ["bot", "list", "--json", "--server", server.address])
        assert result.exit_code == 0, result.stderr
        assert '"bots": []' in result.stdout
    finally:
        server.stop()
