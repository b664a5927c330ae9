"""How a seat's game can end, and which endings are the bot's own fault.

The referee (``server/``) decides the reason; the ladder stores it with the seat and applies the
fault policy: a bot fault ranks that seat last, a server fault voids the match so it is replayed.
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
    """Forfeited after too many replies that could not be decoded."""
    PROTOCOL_ERROR = "protocol_error"
    """Forfeited for breaking the protocol: replying twice, for another bot's request, flooding."""
    CRASHED = "crashed"
    """The bot's process exited while the match was running."""
    DISCONNECTED = "disconnected"
    """The bot's stream closed while the match was running."""
    NEVER_CONNECTED = "never_connected"
    """The bot did not connect and say hello before the connect deadline."""
    ABORTED = "aborted"
    """The match stopped for a reason that is not this bot's fault (server shutdown, engine error)."""

    @property
    def is_bot_fault(self) -> bool:
        """True when the bot caused the ending: the seat ranks last and counts toward suspension."""
        return self not in (EndReason.FINISHED, EndReason.ABORTED)
