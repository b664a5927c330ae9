"""A second server on an address already in use says so in one line and exits; before, gRPC's
SO_REUSEPORT let both listen on one port and answer alternately from one database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kingmaker.server.background import BackgroundServer


def test_a_second_server_on_the_same_port_refuses_to_start(server: BackgroundServer, tmp_path: Path) -> None:
    environment = {**os.environ, "KINGMAKER_HOME": str(tmp_path / "second")}
    command = [sys.executable, "-m", "kingmaker.server.cli", "serve", "--address", server.address]
    second = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, err = second.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        second.kill()
        second.communicate()
        raise AssertionError("the second server started on a port already in use") from None
    assert second.returncode == 1
    ours = [line for line in err.decode().splitlines() if line.startswith("error:")]
    assert ours == [
        f"error: cannot listen on {server.address}: the address is in use or not available here "
        "(is another kingmaker serve running?)"
    ]
