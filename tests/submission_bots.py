"""Bot folders as authors write them, for the submission tests (and the lead's author tests): a
Python bot that imports a helper module beside it, and a C bot built by ``make`` that speaks JSON
lines behind the bridge. ``tests/submissions/conftest.py`` offers both as the ``author_bots`` fixture."""

from __future__ import annotations

from pathlib import Path

PYTHON_BOT = """
import helpers
from kingmaker.sdk import Bot, Request, run


class Helped(Bot):
    def act(self, request: Request) -> int:
        return helpers.choose(len(request.legal_actions))


if __name__ == "__main__":
    run(Helped())
"""

C_BOT = r"""
#include <stdio.h>
#include <string.h>

/* One JSON request per line on stdin; answer each action request with its first legal action. */
int main(void) {
    static char line[1 << 22];
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"actionRequest\"")) {
            fputs("{\"legalActionIndex\": 0}\n", stdout);
            fflush(stdout);
        }
    }
    return 0;
}
"""

C_MANIFEST = """
run = "./bot"
build = "make"
protocol = "json-lines"
language = "c"
"""


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def python_bot(folder: Path, choice: str = "count - 1") -> Path:
    """A Python bot whose choice lives in ``helpers.py`` beside ``bot.py`` (no manifest: detected)."""
    return write(folder, {"bot.py": PYTHON_BOT, "helpers.py": f"def choose(count):\n    return {choice}\n"})


def c_bot(folder: Path, source: str = C_BOT) -> Path:
    """A C bot built by make into ./bot, speaking JSON lines (the server puts the bridge in front)."""
    makefile = "bot: bot.c\n\tcc -O2 -o bot bot.c\n"
    return write(folder, {"kingmaker.toml": C_MANIFEST, "Makefile": makefile, "bot.c": source})


def sample_bot(folder: Path, module: str, game: str, script: str = "bot.py") -> Path:
    """A folder whose ``script`` runs one of the sample bots, its manifest naming ``game`` only."""
    return write(
        folder,
        {
            script: f"import runpy\nrunpy.run_module({module!r}, run_name='__main__')\n",
            "kingmaker.toml": f'run = "python3 {script}"\ngames = ["{game}"]\n',
        },
    )
