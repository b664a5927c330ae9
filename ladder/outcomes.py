"""How a seat's game can end, and which endings are the bot's own fault.

The referee (``server/``) decides the reason; the ladder stores it with the seat and applies the
fault policy. Every reason is exactly one of three kinds:

- played: ``FINISHED``;
- the bot's fault (``is_bot_fault``): the seat ranks last and counts toward suspension;
- the server's fault (``is_server_fault``): the seat was never the bot's to lose (the server could
  not fill it, or stopped the match), so the match is void: nothing is rated, no fault is counted,
  and a league replays it.

The wire mirror of this enum is ``kingmaker.v1.EndReason`` (same member names, prefixed).
"""

from __future__ import annotations

import enum


class EndReason(enum.Enum):
    FINISHED = "finished"
    """Played to the end of the game (strikes along the way do not change this)."""
    TIMEOUT = "timeout"
    """Forfeited after too many late replies."""
    ILLEGAL_ACTION = "illegal_action"
    """Forfeited after too many replies that were not legal actions."""
    MALFORMED_REPLY = "malformed_reply"
    """Forfeited after too many replies that could not be decoded, or at once for bytes on the
    stream that are no message at all (nothing after them can be read)."""
    PROTOCOL_ERROR = "protocol_error"
    """Forfeited for breaking the protocol: replying twice, for another bot's request, to requests
    that are not open (too many strikes of it), flooding."""
    CRASHED = "crashed"
    """The bot's process exited while the match was running."""
    DISCONNECTED = "disconnected"
    """The bot's stream closed while the match was running."""
    NEVER_CONNECTED = "never_connected"
    """The bot did not connect and say hello before the connect deadline."""
    ABORTED = "aborted"
    """The match stopped for a reason that is not this bot's fault (server shutdown, engine error)."""
    SEAT_UNFILLED = "seat_unfilled"
    """The server could not fill the seat for its own reasons: the bot's command could not be
    started here, or the bot was connected but busy in its other matches until the lease gave up."""

    @property
    def is_server_fault(self) -> bool:
        """True when the server, not the bot, ended the seat: the match is void."""
        return self in (EndReason.ABORTED, EndReason.SEAT_UNFILLED)

    @property
    def is_bot_fault(self) -> bool:
        """True when the bot caused the ending: the seat ranks last and counts toward suspension."""
        return self is not EndReason.FINISHED and not self.is_server_fault
