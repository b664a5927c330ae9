"""The admin API's checks on what one request may ask for, with a one-line error.

The bounds themselves are ``kingmaker.ladder.bounds``, shared with the command line (which refuses
the same values before a request is sent); here a request's numbers are checked against them and
an out-of-bounds one becomes INVALID_ARGUMENT. "0" means the default wherever the proto says so.
"""

from __future__ import annotations

from kingmaker.ladder import bounds
from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.v1 import common_pb2

DEFAULT_PAGE = 50
TOP_STANDINGS = 100
"""Standings rows when the caller does not say how many."""
DEFAULT_DUEL_MATCHES = 400


def within(bound: bounds.Bound[int], value: int) -> int:
    """``value``, or ``InvalidRequestError`` with the bound's sentence."""
    try:
        return bound.check(value)
    except bounds.OutOfBounds as error:
        raise InvalidRequestError(str(error)) from None


def seed(value: int) -> int:
    return within(bounds.SEED, value)


def match_id(text: str) -> int:
    """A stored match's id from its text; NOT_FOUND for anything that cannot be one."""
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) > bounds.SEED.high:
        raise NotFoundError(f"no match {text[:40]!r}")
    return int(text)


def time_control(message: common_pb2.TimeControl) -> TimeControl:
    """A time control within bounds (0 means the default for decision_ms and max_strikes)."""
    within(bounds.DECISION_MS, message.decision_ms)
    within(bounds.BANK_MS, message.bank_ms)
    within(bounds.INCREMENT_MS, message.increment_ms)
    within(bounds.MAX_STRIKES, message.max_strikes)
    return TimeControl(
        decision_ms=message.decision_ms or TimeControl.decision_ms,
        bank_ms=message.bank_ms,
        increment_ms=message.increment_ms,
        max_strikes=message.max_strikes or TimeControl.max_strikes,
    )


def concurrency(value: int) -> int:
    """0 means the league's own (or the server's default)."""
    if value == 0:
        return 0
    high = bounds.CONCURRENCY.high
    if not bounds.CONCURRENCY.low <= value <= high:
        raise InvalidRequestError(f"concurrency must be from 1 to {high} (0: the default), not {value}")
    return value


def page_size(value: int, default: int = DEFAULT_PAGE) -> int:
    """0 means the default page; more than ``bounds.PAGE.high`` is refused, not silently cut."""
    if value != 0 and not bounds.PAGE.low <= value <= bounds.PAGE.high:
        raise InvalidRequestError(f"at most {bounds.PAGE.high} rows a request (0: {default}), not {value}")
    return value or default


def page_token_id(token: str) -> int | None:
    """The id a page token carries (tokens are the last id of the previous page)."""
    if not token:
        return None
    if not token.isascii() or not token.isdigit() or len(token) > 19:
        raise InvalidRequestError(f"not a page token: {token[:40]!r}")
    return int(token)


def offset(value: int) -> int:
    return within(bounds.OFFSET, value)


def duel_matches(value: int) -> int:
    """0 means the default."""
    return within(bounds.SERVER_DUEL_MATCHES, value) or DEFAULT_DUEL_MATCHES
