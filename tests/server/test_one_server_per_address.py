"""`serve` on an address it cannot bind says why in one line, exits, and makes nothing: no home,
no database, no admin token (issue #32: it made all three, then asked "is another serve running?"
of an address that is not this machine's). A second server on a port in use is one case: before,
gRPC's SO_REUSEPORT let both listen on one port and answer alternately from one database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kingmaker.server.background import BackgroundServer

IN_USE = "the address is in use by another process (another kingmaker serve, or any other)"


def refused_serve(address: str, home: Path) -> str:
    """`serve --address ADDRESS` with this home: its one error line (it must exit 1)."""
    environment = {**os.environ, "KINGMAKER_HOME": str(home)}
    environment.pop("KINGMAKER_DATABASE_URL", None)
    command = [sys.executable, "-m", "kingmaker.server.cli", "serve", "--address", address]
    serve = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, err = serve.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        serve.kill()
        serve.communicate()
        raise AssertionError(f"serve started on {address}, which it cannot bind") from None
    assert serve.returncode == 1, err.decode()
    ours = [line for line in err.decode().splitlines() if line.strip()]
    assert len(ours) == 1, ours
    assert not home.exists(), f"serve made {sorted(os.listdir(home))} before finding it cannot listen"
    return ours[0]


def test_a_second_server_on_the_same_port_refuses_to_start(server: BackgroundServer, tmp_path: Path) -> None:
    said = refused_serve(server.address, tmp_path / "second")
    assert said == f"error: cannot listen on {server.address}: {IN_USE}"


def test_a_port_another_program_listens_on_is_in_use(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as other:
        address = f"127.0.0.1:{other.getsockname()[1]}"
        assert refused_serve(address, tmp_path / "home") == f"error: cannot listen on {address}: {IN_USE}"


@pytest.mark.parametrize("host", ["1.2.3.4", "192.0.2.1"])
def test_an_address_not_on_this_machine_is_said_to_be_so(host: str, tmp_path: Path) -> None:
    said = refused_serve(f"{host}:50999", tmp_path / "home")
    assert said == f"error: cannot listen on {host}:50999: {host} is not an address of this machine"
