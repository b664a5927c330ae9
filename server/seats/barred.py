"""Why a registered bot whose token is valid may not play now, in the words it is told.

A suspended or disabled bot that connects gets one ``Error`` (``SUSPENDED`` or ``DISABLED``) saying
why and how to be seated again, then its stream ends with ``PERMISSION_DENIED``: its token is
fine, so it is not told that it is "unknown or revoked" (docs/protocol.md, "The hello")."""

from __future__ import annotations

from kingmaker.ladder.records import BotInfo
from kingmaker.v1 import arena_pb2


def barred(bot: BotInfo) -> tuple[str, int]:
    """(why the bot may not play, the error code that says so); ("", 0) for a bot that may."""
    if not bot.enabled:
        text = (
            f"bot {bot.name} is disabled by an admin; "
            f"it plays again once enabled (`kingmaker bot enable {bot.name}`)"
        )
        return text, arena_pb2.ERROR_CODE_DISABLED
    if bot.suspended_reason is not None:
        # The fault policy's reason reads "suspended after 3 faults ..."; a submitted bot's first
        # wait reads "no version of it has passed ...".
        why = (
            bot.suspended_reason
            if bot.suspended_reason.startswith("suspended")
            else (f"suspended: {bot.suspended_reason}")
        )
        text = (
            f"bot {bot.name} is {why}. It is seated again once an admin runs "
            f"`kingmaker bot reinstate {bot.name}`, or once a new version of it passes its checks"
        )
        return text, arena_pb2.ERROR_CODE_SUSPENDED
    return "", 0
