"""The random bot as its author would run it by hand, against a server of their choosing.

    python -m kingmaker.sample_bots.remote_random_bot --server HOST:PORT --token TOKEN \\
        [--games kingdoms,kingsburg] [--capacity 2] [--pause 0.05]

``--games`` is what the hello offers (empty: every game the bot is registered for), ``--capacity``
how many matches it plays at once, ``--pause`` a think time per decision in seconds. The tests and
benches use it as an innocent remote bot: it only ever answers legally and on time.
"""

from __future__ import annotations

import argparse
import time

from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sdk import Request, run


class UnhurriedRandomBot(RandomBot):
    def __init__(self, pause: float) -> None:
        super().__init__()
        self.pause = pause

    def act(self, request: Request) -> int:
        if self.pause:
            time.sleep(self.pause)
        return super().act(request)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--server", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--games", default="", help="comma-separated; empty offers every game")
    parser.add_argument("--capacity", type=int, default=1)
    parser.add_argument("--pause", type=float, default=0.0)
    args = parser.parse_args()
    games = [game for game in args.games.split(",") if game]
    run(UnhurriedRandomBot(args.pause), args.server, args.token, games, args.capacity)


if __name__ == "__main__":
    main()
