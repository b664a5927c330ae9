"""Answers with a well-formed action that is not among the legal ones (one field pushed out of range)."""

from __future__ import annotations

import dataclasses

from kingmaker.sample_bots.faulty.common import FaultyBot
from kingmaker.sdk import Request, run


class IllegalBot(FaultyBot):
    name = "illegal"

    def misbehave(self, request: Request) -> object:
        for action in request.legal_actions:
            for field in dataclasses.fields(action):
                value = getattr(action, field.name)
                if isinstance(value, int) and not isinstance(value, bool):
                    changed = dataclasses.replace(action, **{field.name: value + 1000})
                    if changed not in request.legal_actions:
                        return changed
        return len(request.legal_actions)  # no int field anywhere: an index one past the end


if __name__ == "__main__":
    run(IllegalBot())
