"""The README's "Using it" block, run as written, line by line, in a fresh folder: every command
must work for a new user exactly as the README shows it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support import free_port

README = Path(__file__).parents[2] / "README.md"


def block(after_heading: str, language: str) -> str:
    text = README.read_text()
    section = text[text.index(after_heading) :]
    return re.search(rf"```{language}\n(.*?)```", section, re.DOTALL).group(1)  # type: ignore[union-attr]


@pytest.mark.slow
def test_the_using_it_block_works_as_written(tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(sys.prefix)  # the README's commands start with .venv/bin/
    (tmp_path / "my_bot.py").write_text(block("## Writing a bot in Python", "python"))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KINGMAKER_")}
    environment["KINGMAKER_SERVER"] = f"127.0.0.1:{free_port()}"  # where `serve` listens, and the rest call
    lines = [line for line in block("## Using it", "sh").splitlines() if line.strip()]
    server: subprocess.Popen[bytes] | None = None
    outputs: dict[str, str] = {}
    try:
        for line in lines:
            command = line.split("  #", 1)[0].strip()
            if command.endswith("&"):
                server = subprocess.Popen(["bash", "-c", command[:-1]], cwd=tmp_path, env=environment)
                continue
            if command == "kill %1":
                assert server is not None and server.poll() is None, "the server ran to the end"
                server.terminate()
                assert server.wait(30) == 0, "the server stopped cleanly"
                server = None
                continue
            done = subprocess.run(
                ["bash", "-c", command], cwd=tmp_path, env=environment, capture_output=True, timeout=600
            )
            out = done.stdout.decode()
            assert done.returncode == 0, f"{command}\n{out}\n{done.stderr.decode()}"
            outputs[command] = out
    finally:
        if server is not None:
            server.kill()
            server.wait()
    said = "\n".join(outputs.values())
    assert "kingdoms" in outputs[lines[0].split("  #")[0].strip()]
    assert str(tmp_path / "my_bot.py") in said, "the relative script was stored absolute"
    assert "finished" in said and "greedy" in said
    assert (tmp_path / "ratings.png").stat().st_size > 0
    assert "verified: match 7 replays to the recorded end" in said
