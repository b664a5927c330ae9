"""The ladder's exceptions: one base class, each with a one-line message the CLI can print.

Every call that raises one of these has changed nothing in the database (the transaction is rolled
back), so a caller can report the message and carry on.
"""

from __future__ import annotations


class LadderError(Exception):
    """Base class: a request the ladder refuses, with a message for people."""


class DatabaseUrlError(LadderError):
    """The database URL is malformed, names an unknown dialect, or cannot be reached."""


class NotFoundError(LadderError):
    """No bot, league or match under that name or id."""


class ConflictError(LadderError):
    """The request clashes with what is stored: a taken name, a match in the wrong state."""


class InvalidRequestError(LadderError):
    """The request itself is wrong: an unknown game, bad options, too few bots."""


class ForbiddenError(LadderError):
    """The caller may not do this to what is stored: another author's bot."""


class BoundReachedError(InvalidRequestError):
    """An author's bound (submissions per hour, bytes stored) would be passed; the message names
    it and how to free it."""

    def __init__(self, text: str, bound: str) -> None:
        super().__init__(text)
        self.bound = bound
