"""Exits with status 3 in the middle of the match, without a word."""

from __future__ import annotations

import os

from kingmaker.sample_bots.faulty.common import FaultyBot
from kingmaker.sdk import Request, run


class CrashBot(FaultyBot):
    name = "crash"

    def misbehave(self, request: Request) -> object:
        os._exit(3)


if __name__ == "__main__":
    run(CrashBot())
