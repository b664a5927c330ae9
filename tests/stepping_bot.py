"""A bot for the per-step output tests: it prints one distinct line on stderr per request, "step
line N of request ID" for its N-th request (given any first argument but 0, after a megabyte)."""

STEPPING = '''
import sys
from kingmaker.sdk import Bot, Request, run

LOUD = int(sys.argv[1])


class Stepping(Bot):
    """Prints one distinct line per request (when LOUD, after a megabyte)."""

    def __init__(self) -> None:
        self.count = 0

    def act(self, request: Request) -> int:
        self.count += 1
        if LOUD:
            sys.stderr.write("x" * 1024 * 1024 + "\\n")
        print(f"step line {self.count} of request {request.request_id}", file=sys.stderr, flush=True)
        return 0


run(Stepping())
'''
