"""A seat's result as the website and the command line write it for people (standard library and
the protos only: the command line imports it and starts light)."""

from __future__ import annotations

from kingmaker.v1 import common_pb2


def end_reason_word(value: int) -> str:
    """An ``EndReason`` as its lower-case word ("finished", "timeout", "illegal_action")."""
    return common_pb2.EndReason.Name(value).removeprefix("END_REASON_").lower()


def seat_bot(seat: common_pb2.SeatResult) -> str:
    """The bot that played the seat, with its version where the record names one ("ann@2")."""
    return f"{seat.bot}@{seat.version}" if seat.version else seat.bot
