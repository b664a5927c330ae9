"""kingmaker.sdk: what a Python bot author imports.

from kingmaker.sdk import Bot, Request, run

class MyBot(Bot):
    def act(self, request: Request) -> int:
        return 0  # the index of a legal action, or the action itself

if __name__ == "__main__":
    run(MyBot())
"""

from kingmaker.sdk.bot import Bot, FunctionBot, MatchEnd, MatchStart, Reply, Request
from kingmaker.sdk.client import ConnectionRefused, play, run
from kingmaker.sdk.local import LocalMatch, play_local

__all__ = [
    "Bot",
    "ConnectionRefused",
    "FunctionBot",
    "LocalMatch",
    "MatchEnd",
    "MatchStart",
    "Reply",
    "Request",
    "play",
    "play_local",
    "run",
]
