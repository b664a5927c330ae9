"""One-off matches at once, per author: ``match run`` and ``duel`` past an author's bound are refused.

Each one-off match starts its bots for itself (processes, memory, a run folder each), so one
author must not start fifty at once, as one author's twenty submissions are not twenty builds at
once (``new_versions/build_queue``). A build past its bound waits, queued; a one-off match is a
call its author waits on, so past the bound it is refused at once, in one line naming the bound
(``RESOURCE_EXHAUSTED``). A duel is one call, however many matches it plays at once. The admin's
are not bounded: the operator is trusted with the machine. A person's table is bounded apart:
one at a time (``admin/play``).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator

from kingmaker.ladder.errors import BoundReachedError
from kingmaker.server.services.permissions import Caller

ONE_OFF_AT_ONCE = 2
"""An author's one-off matches and duels running at once."""


class OneOffMatches:
    def __init__(self, at_once: int = ONE_OFF_AT_ONCE) -> None:
        self.at_once = at_once
        self.running: Counter[int] = Counter()
        """Each author's one-off matches and duels running now."""

    @contextlib.contextmanager
    def taken(self, caller: Caller, what: str) -> Iterator[None]:
        """A place for one of ``caller``'s one-off ``what`` ("match", "duel") while it runs;
        ``BoundReachedError`` when their places are all taken."""
        author = caller.author_id
        if caller.is_admin or author is None:
            yield
            return
        if self.running[author] >= self.at_once:
            raise BoundReachedError(
                f"author {caller.name} runs {self.running[author]} one-off matches or duels at once, "
                f"their bound (one-off matches at once: {self.at_once}): wait for one to end before "
                f"this {what}",
                "one-off matches at once",
            )
        self.running[author] += 1
        try:
            yield
        finally:
            self.running[author] -= 1
            if not self.running[author]:
                del self.running[author]
