"""What of a reply each caller sees: every field of every Admin reply, public or private.

``permissions.PERMISSIONS`` says who may make a call; this says, field by field, what its reply
shows. A reply is about bots (``SUBJECTS``: the field that names the bot a message is about; a
nested message is about its parent's bot unless it names its own), and a field is

- ``PUBLIC``: anyone's, as on the website;
- ``PRIVATE``: the bot's owner's and the admin's; cleared for anyone else;
- ``REWORDED``: the owner and the admin read it whole, anyone else a public wording of it
  (``REWORDINGS``: a version's status reason, whose text may be an error's);
- ``OWN_ITEMS``: a list whose items each belong to a bot; anyone but their owners and the admin
  gets it without the items of bots not theirs;
- ``CALLERS``: the caller's own (a token just made, the stderr of the caller's own check): only in
  replies of calls that only the bot's owner or the admin may make, never of a public call (a
  test holds this).

Nothing anyone but the admin reads names a host folder (``host_paths.neutral``: a traceback from
the server's Python, a run folder in an error); the admin sees it as it is. ``redact``
applies the table to a reply; ``permitted`` calls it on every reply of every RPC, so no
method can forget it, and a test walks every field of every reply message: one missing from the
table fails it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from enum import Enum
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from kingmaker.server.services.host_paths import neutral
from kingmaker.server.services.permissions import Caller


class Seen(Enum):
    PUBLIC = "public"
    PRIVATE = "private"
    REWORDED = "reworded"
    OWN_ITEMS = "own items"
    CALLERS = "caller's own"


def _fields(public: str = "", private: str = "", **others: Seen) -> dict[str, Seen]:
    table = dict.fromkeys(public.split(), Seen.PUBLIC)
    table.update(dict.fromkeys(private.split(), Seen.PRIVATE))
    table.update(others)
    return table


FIELDS: dict[str, dict[str, Seen]] = {
    # games and matches
    "ListGamesResponse": _fields("games"),
    "GameInfo": _fields(
        "name title edition min_players max_players chance hidden_information simultaneous options score_name"
    ),
    "OptionInfo": _fields("name default help choices"),
    "OptionValue": _fields("flag number text"),
    "MatchRecord": _fields(
        "match_id game edition seed options seats decisions status started_at finished_at "
        "observation_digests league status_reason rated seat_times revealed duplicate_group",
        seat_logs=Seen.OWN_ITEMS,
    ),
    "SeatResult": _fields("seat bot score rank end_reason strikes detail version", "stderr_tail"),
    # A person's Play stream: what the referee sends the one seat it is for, as to a bot's
    # stream (its observation, legal actions and clock); no one else's call ever carries it.
    **{
        name: dict.fromkeys(fields.split(), Seen.CALLERS)
        for name, fields in {
            "ServerMessage": "welcome match_start action_request match_end error seat_update",
            "Welcome": "bot session_id protocol_version",
            "MatchStart": "match_id game edition seat players options seat_bots time_control",
            "ActionRequest": "match_id request_id seat observation legal_actions deadline_ms time_bank_ms",
            "MatchEnd": "match_id seat end_reason results",
            "Error": "code message match_id request_id",
            "SeatUpdate": "match_id seat step acted observation",
            "TimeControl": "decision_ms bank_ms increment_ms max_strikes",
        }.items()
    },
    "JointAction": _fields("actions"),
    "SeatAction": _fields("seat action source"),
    "Any": _fields("type_url value"),
    "SeatDigests": _fields("digests"),
    "SeatTime": _fields("seat decisions total_ms p50_ms p99_ms"),
    "SeatLog": _fields(
        "bot",
        "match_id seat version game finished_at end_reason detail strikes exit stderr stderr_bytes steps",
    ),
    "StepOutput": _fields(private="decision text bytes"),
    "Strike": _fields("request_id kind detail"),
    "ListMatchesResponse": _fields("matches next_page_token"),
    # bots
    "AddBotResponse": _fields("bot", token=Seen.CALLERS),
    "BotInfo": _fields(
        "name games enabled suspended_reason created_at connected retired author active_version "
        "latest_version latest_status managed",
        "command working_directory suspended_stderr confinement",
    ),
    "ListBotsResponse": _fields("bots next_page_token"),
    "RotateTokenResponse": _fields(token=Seen.CALLERS),
    "CheckBotResponse": _fields(ok=Seen.CALLERS, detail=Seen.CALLERS, stderr_tail=Seen.CALLERS),
    "BotStats": _fields("bot games ends think think_matches last_fault"),
    "BotGameStats": _fields(
        "game matches wins win_rate mean_place faults mu sigma conservative position ladder_size"
    ),
    "SeatFault": _fields("match_id end_reason detail"),
    # leagues and the ladder
    "LeagueInfo": _fields(
        "name game format players seed duplicate options bots finished matches status_reason "
        "paused concurrency in_play held_back server_lag_ms workers lag_limit_ms "
        "held_back_seconds held_total_seconds matches_per_minute away left waiting_reason "
        "max_matches time_budget_seconds started_at"
    ),
    "WorkerLoad": _fields("pid in_play loop_lag_ms matches_done"),
    "LeagueProgress": _fields(
        "league finished running waiting void last done reason held_back server_lag_ms "
        "lag_limit_ms held_back_seconds matches_per_minute waiting_reason"
    ),
    "ListLeaguesResponse": _fields("leagues next_page_token"),
    "LeaguePairsResponse": _fields("pairs"),
    "LeaguePair": _fields("bot other planned played"),
    "GetStandingsResponse": _fields("game standings total"),
    "Standing": _fields("position bot mu sigma conservative matches wins average_rank faults active"),
    "GetRatingHistoryResponse": _fields("series"),
    "RatingSeries": _fields("bot points"),
    "RatingPoint": _fields("matches mu sigma conservative version match_id"),
    "LadderPolicy": _fields("game new_version"),
    # authors
    "WhoAmIResponse": _fields("role author"),
    "AuthorInfo": _fields(
        "name enabled bot_quota bots created_at builds_at_once submissions_per_hour stored_bytes "
        "stored_bytes_bound"
    ),
    "AddAuthorResponse": _fields("author", token=Seen.CALLERS),
    "ListAuthorsResponse": _fields("authors next_page_token"),
    "RotateAuthorTokenResponse": _fields(token=Seen.CALLERS),
    # submissions and versions: anyone sees a version's number, times, status and a public reason
    "VersionInfo": _fields(
        "bot number status submitted_by created_at built_at activated_at validation queue_place pruned",
        "source archive_hash build_hash command protocol manifest build_log ab ab_games build_output "
        "build_cpu_seconds build_cpu_limit build_wall_seconds",
        status_reason=Seen.REWORDED,
    ),
    "ValidationMatch": _fields("game players seat end_reason passed", "detail stderr_tail"),
    "DuelProgress": _fields(
        "seeds matches score score_low score_high elo elo_half_width llr llr_lower llr_upper "
        "verdict done reason game against words elapsed_seconds seconds_left"
    ),
    "ListVersionsResponse": _fields("versions next_page_token"),
    # PruneVersions answers its caller about their own bots only (the admin: anyone's).
    "PruneVersionsResponse": _fields(
        versions=Seen.CALLERS, bytes_freed=Seen.CALLERS, trial_matches=Seen.CALLERS
    ),
    "PrunedVersion": _fields(bot=Seen.CALLERS, number=Seen.CALLERS, bytes=Seen.CALLERS),
    # competitions: public, like the ladder (docs/competitions.md)
    "CompetitionInfo": _fields(
        "name game players opens_at closes_at phase finals_format rounds cuts best_of open_league "
        "stage winner entries decisions standings stages now tiers promote_after finals_at swiss_rounds "
        "relegate_after"
    ),
    "SwissRound": _fields("stage tables byes"),
    "SwissTable": _fields("bots points"),
    "CompetitionTier": _fields("name boss league"),
    "CompetitionEntry": _fields(
        "bot author active_version selected_version frozen_version seed out_at_stage tier"
    ),
    "CompetitionDecision": _fields("kind bot stage reason decided_at"),
    "CompetitionStanding": _fields(
        "place bot version mu sigma conservative matches wins note points tier buchholz"
    ),
    "CompetitionStage": _fields("stage slot league bots finished match_ids"),
    "ListCompetitionsResponse": _fields("competitions next_page_token"),
    "GetBotLogsResponse": _fields("next_page_token", logs=Seen.OWN_ITEMS),
    # ListNotices answers an author with their own notices only (the admin: everyone's).
    "ListNoticesResponse": _fields(notices=Seen.CALLERS, next_page_token=Seen.CALLERS),
    "Notice": dict.fromkeys(
        ["id", "author", "kind", "summary", "detail", "bot", "version", "competition", "created_at"],
        Seen.CALLERS,
    ),
    # A version's trial matches: only its owner and the admin may list them (``permissions``);
    # each item is its bot's, hidden from anyone else should a listing ever reach them.
    "ListTrialMatchesResponse": _fields("next_page_token", matches=Seen.OWN_ITEMS),
    "TrialMatchInfo": _fields("bot", "id version purpose game seed seats played_at"),
}

SUBJECTS: dict[str, str] = {
    "BotInfo": "name",
    "VersionInfo": "bot",
    "SeatResult": "bot",
    "SeatLog": "bot",
    "TrialMatchInfo": "bot",
    "BotStats": "bot",
}
"""The field naming the bot a message is about (its owner and the admin see its private fields)."""

PUBLIC_VERSION_REASONS = {
    "build_failed": "its build failed",
    "rejected": "it did not pass its validation",
    "retired": "another version plays instead",
}
"""What anyone but a version's owner reads of why it failed or retired: no error's text."""


def public_version_reason(status: str, reason: str | None) -> str:
    """Why a version stands where it does, as anyone but its owner reads it (the website too)."""
    return PUBLIC_VERSION_REASONS.get(status, "") if reason else ""


REWORDINGS: dict[tuple[str, str], Callable[[Any], str]] = {
    ("VersionInfo", "status_reason"): lambda message: public_version_reason(
        message.status, message.status_reason
    ),
}


def subjects(message: Message) -> set[str]:
    """Every bot the reply is about (to look their owners up once)."""
    found: set[str] = set()
    name = message.DESCRIPTOR.name
    if name in SUBJECTS:
        found.add(getattr(message, SUBJECTS[name]))
    for child in _children(message):
        found |= subjects(child)
    return found


def redact(
    message: Message,
    owns: Callable[[str | None], bool],
    subject: str | None = None,
    scrub: Callable[[str], str] = neutral,
) -> None:
    """Clear, in place, what a caller other than the admin may not see (``owns(bot)``: whether
    it is theirs; None for a message about no bot, which is the admin's alone), and say the
    host's paths by neutral names in every text they read (``scrub``: a traceback names where the
    server is installed, a launch error a build's folder in the home)."""
    descriptor = message.DESCRIPTOR
    table = FIELDS[descriptor.name]
    if descriptor.name in SUBJECTS:
        subject = getattr(message, SUBJECTS[descriptor.name])
    mine = owns(subject)
    for field in descriptor.fields:
        seen = table[field.name]
        if mine or seen in (Seen.PUBLIC, Seen.CALLERS):
            pass
        elif seen is Seen.PRIVATE:
            message.ClearField(field.name)
            continue
        elif seen is Seen.REWORDED:
            setattr(message, field.name, REWORDINGS[(descriptor.name, field.name)](message))
        elif seen is Seen.OWN_ITEMS:
            items = getattr(message, field.name)
            kept = [item for item in items if owns(getattr(item, SUBJECTS[item.DESCRIPTOR.name]))]
            del items[:]
            items.extend(kept)
        _scrub(message, field, scrub)
        for child in _field_messages(message, field):
            redact(child, owns, subject, scrub)


def for_caller(caller: Caller, owners: dict[str, int | None]) -> Callable[[str | None], bool]:
    """``owns`` for ``redact``: ``owners`` maps each bot named to its owner (None: the admin's)."""
    return lambda bot: caller.is_admin or (bot is not None and bot in owners and caller.owns(owners[bot]))


def _scrub(message: Message, field: Any, scrub: Callable[[str], str]) -> None:
    """A text field (one, a list, or a map's values) through ``scrub``. A oneof's text that is
    not the one set is left alone: setting it would make it the one (an option's flag a text)."""
    value = getattr(message, field.name)
    if field.containing_oneof is not None and not message.HasField(field.name):
        return
    if field.type == FieldDescriptor.TYPE_STRING:
        if field.is_repeated:
            value[:] = [scrub(item) for item in value]
        else:
            setattr(message, field.name, scrub(value))
    elif (
        field.message_type is not None
        and field.message_type.GetOptions().map_entry
        and field.message_type.fields_by_name["value"].type == FieldDescriptor.TYPE_STRING
    ):
        for key in list(value):
            value[key] = scrub(value[key])


DATA_ONLY = frozenset(
    {"JointAction", "SeatAction", "Any", "SeatDigests", "SeatTime", "OptionValue", "RatingPoint"}
)
"""Messages all public whose texts are never free (kinds, digests, type URLs): not walked, so a
match of thousands of decisions costs no more to show than its seats."""


def _field_messages(message: Message, field: Any) -> Iterator[Message]:
    if field.message_type is None or field.message_type.name in DATA_ONLY:
        return
    value = getattr(message, field.name)
    if field.message_type.GetOptions().map_entry:
        values = field.message_type.fields_by_name["value"].message_type
        if values is not None and values.name not in DATA_ONLY:
            yield from value.values()
    elif field.is_repeated:
        yield from value
    elif message.HasField(field.name):
        yield value


def _children(message: Message) -> Iterator[Message]:
    for field in message.DESCRIPTOR.fields:
        yield from _field_messages(message, field)


def reply_messages(descriptor: Descriptor) -> Iterator[Descriptor]:
    """Every message a reply of this type may carry, itself first (maps' entries left out)."""
    seen: set[str] = set()
    stack = [descriptor]
    while stack:
        current = stack.pop()
        if current.full_name in seen:
            continue
        seen.add(current.full_name)
        yield current
        for field in current.fields:
            nested = field.message_type
            if nested is not None and nested.GetOptions().map_entry:
                nested = nested.fields_by_name["value"].message_type
            if nested is not None:
                stack.append(nested)
