"""Bounds on what one admin request may ask for, checked at the edge with a one-line error.

The ladder checks what it owns (names, plan sizes, league settings); these are the numbers that
only the server reads: seeds, match ids, time controls, concurrency and page sizes. Each bound is
generous for real use and small enough that no single request can make the server do unbounded
work or hold a match hostage (a 49-day time bank, 2^31 rounds, a negative concurrency).
"""

from __future__ import annotations

from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.server.deadlines import TimeControl
from kingmaker.v1 import common_pb2

MAX_SEED = 2**63 - 1
"""Seeds are stored in a signed 64-bit column."""
MAX_DECISION_MS = 10 * 60 * 1000
MAX_BANK_MS = 60 * 60 * 1000
MAX_INCREMENT_MS = 10 * 60 * 1000
MAX_STRIKES = 100
MAX_CONCURRENCY = 256
MAX_PAGE = 1000
"""The most rows one list request returns."""
DEFAULT_PAGE = 50
TOP_STANDINGS = 100
"""Standings rows when the caller does not say how many."""
MAX_OFFSET = 10_000_000
MAX_DUEL_MATCHES = 10_000
DEFAULT_DUEL_MATCHES = 400


def seed(value: int) -> int:
    if not 0 <= value <= MAX_SEED:
        raise InvalidRequestError(f"a seed must be from 0 to 2^63 - 1, not {value}")
    return value


def match_id(text: str) -> int:
    """A stored match's id from its text; NOT_FOUND for anything that cannot be one."""
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > MAX_SEED:
        raise NotFoundError(f"no match {text[:40]!r}")
    return int(text)


def time_control(message: common_pb2.TimeControl) -> TimeControl:
    """A time control within bounds (0 means the default for decision_ms and max_strikes)."""
    checks = (
        ("decision_ms", message.decision_ms, 0, MAX_DECISION_MS),
        ("bank_ms", message.bank_ms, 0, MAX_BANK_MS),
        ("increment_ms", message.increment_ms, 0, MAX_INCREMENT_MS),
        ("max_strikes", message.max_strikes, 0, MAX_STRIKES),
    )
    for name, value, low, high in checks:
        if not low <= value <= high:
            raise InvalidRequestError(f"{name} must be from {low} to {high:,}, not {value}")
    return TimeControl(
        decision_ms=message.decision_ms or TimeControl.decision_ms,
        bank_ms=message.bank_ms,
        increment_ms=message.increment_ms,
        max_strikes=message.max_strikes or TimeControl.max_strikes,
    )


def concurrency(value: int) -> int:
    """0 means the league's own (or the server's default)."""
    if not 0 <= value <= MAX_CONCURRENCY:
        raise InvalidRequestError(
            f"concurrency must be from 1 to {MAX_CONCURRENCY} (0: the default), not {value}"
        )
    return value


def page_size(value: int, default: int = DEFAULT_PAGE) -> int:
    """0 means the default page; more than ``MAX_PAGE`` is refused, not silently cut."""
    if not 0 <= value <= MAX_PAGE:
        raise InvalidRequestError(f"at most {MAX_PAGE} rows a request (0: {default}), not {value}")
    return value or default


def page_token_id(token: str) -> int | None:
    """The id a page token carries (tokens are the last id of the previous page)."""
    if not token:
        return None
    if not token.isascii() or not token.isdigit() or len(token) > 19:
        raise InvalidRequestError(f"not a page token: {token[:40]!r}")
    return int(token)


def offset(value: int) -> int:
    if not 0 <= value <= MAX_OFFSET:
        raise InvalidRequestError(f"offset must be from 0 to {MAX_OFFSET:,}, not {value}")
    return value


def duel_matches(value: int) -> int:
    """0 means the default."""
    if not 0 <= value <= MAX_DUEL_MATCHES:
        raise InvalidRequestError(
            f"a duel plays at most {MAX_DUEL_MATCHES:,} matches (0: {DEFAULT_DUEL_MATCHES}), not {value}"
        )
    return value or DEFAULT_DUEL_MATCHES
