"""Dies of SIGSEGV in the middle of the match, as a native bot with a bad pointer would."""

from __future__ import annotations

import os
import signal

from kingmaker.sample_bots.faulty.common import FaultyBot
from kingmaker.sdk import Request, run


class SegfaultBot(FaultyBot):
    name = "segfault"

    def misbehave(self, request: Request) -> object:
        os.kill(os.getpid(), signal.SIGSEGV)
        raise AssertionError("SIGSEGV did not kill the bot")


if __name__ == "__main__":
    run(SegfaultBot())
