"""What the console's pages show, read through the Admin API with the author's token: the same
dicts feed the pages and their JSON twins under ``/api/console``. A bot that is not the signed-in
author's is "not found" here, whoever owns it, before any call that could say more about it; the
server's permission table refuses the private calls (logs, build logs) to anyone else anyway."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from kingmaker.server.visible_text import visible_values
from kingmaker.server.web.console.client import ConsoleClient, ConsoleError
from kingmaker.server.web.console.match_query import MatchQuery
from kingmaker.server.web.seat_words import end_reason_word
from kingmaker.v1 import admin_pb2

FINAL = ("build_failed", "rejected", "active", "retired")
"""A version in one of these has no more steps to show."""
LISTED = 1000
"""The most bots and leagues the console lists."""
MATCHES = 20
"""The newest matches shown on a bot's page."""
NOTICES = 50
"""Notices a page."""
NOTICE_KINDS = {
    "build_failed": "build failed",
    "validation_failed": "validation failed",
    "ab_verdict": "A/B verdict",
    "suspended": "suspended",
    "deadline_ahead": "deadline ahead",
}
"""A notice's kind as people read it."""
LOGS_READ = 200
"""The seat logs read beside them (a filtered page may skip over matches that kept one)."""


def as_dict(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def home(client: ConsoleClient, token: str, author: str) -> dict[str, Any]:
    listed = client.call("ListBots", admin_pb2.ListBotsRequest(limit=LISTED), token)
    mine = [bot for bot in listed.bots if bot.author == author]
    return {"author": author, "bots": [_with_status(bot) for bot in mine]}


def bot_status(bot: admin_pb2.BotInfo) -> str:
    """How the bot stands, in a word or two: what the server does with it now. (BotInfo has no
    status field: before, the console read one and showed nothing.)"""
    if bot.retired:
        return "retired"
    if bot.latest_version and not bot.active_version:
        return "no version plays yet"
    if bot.suspended_reason:
        return "suspended"
    if not bot.enabled:
        return "disabled"
    if bot.managed or bot.command or bot.active_version:
        return "plays"
    return "connected" if bot.connected else "not connected"


def _with_status(bot: admin_pb2.BotInfo) -> dict[str, Any]:
    data = as_dict(bot)
    data["status"] = bot_status(bot)
    return data


def own_bot(client: ConsoleClient, token: str, author: str, name: str) -> admin_pb2.BotInfo:
    """The bot, if it is this author's; otherwise ``ConsoleError`` 404 (the same for a bot of
    someone else's as for no bot at all)."""
    try:
        bot = client.call("GetBot", admin_pb2.GetBotRequest(name=name), token)
    except ConsoleError as error:
        if error.status != 404:
            raise
        bot = None
    if bot is None or bot.author != author:
        raise ConsoleError(404, f"you have no bot named {name!r}")
    return bot  # type: ignore[no-any-return]


def bot(
    client: ConsoleClient,
    token: str,
    author: str,
    name: str,
    after: str = "",
    only: MatchQuery | None = None,
) -> dict[str, Any]:
    """The bot's page; ``after``: the matches older than this page token (the page before's);
    ``only``: the matches to list (by opponent, version, result)."""
    info = own_bot(client, token, author, name)
    only = only or MatchQuery()
    versions = client.call("ListVersions", admin_pb2.ListVersionsRequest(bot=name, limit=50), token)
    asked = admin_pb2.ListMatchesRequest(
        bot=name,
        opponent=only.opponent,
        version=only.version,
        result=only.result,
        limit=MATCHES,
        page_token=after,
    )
    listed = client.call("ListMatches", asked, token)
    stats = client.call("GetBotStats", admin_pb2.GetBotRequest(name=name), token)
    leagues = client.call("ListLeagues", admin_pb2.ListLeaguesRequest(limit=LISTED), token)
    ladders = [  # (a bot that left stays among the league's bots, listed in ``left``)
        {
            "name": league.name,
            "game": league.game,
            "member": name in league.bots and name not in league.left,
            "paused": league.paused,
        }
        for league in leagues.leagues
        if league.format == "ladder" and not league.finished and league.game in info.games
    ]
    return {
        "bot": _with_status(info),
        "versions": [as_dict(version) for version in versions.versions],
        "ratings": [_rating(client, token, name, game) for game in stats.games],
        "filters": only.as_dict(),
        "matches": _with_output(client, token, name, [own_row(record, name) for record in listed.matches]),
        "older_matches": listed.next_page_token,
        "ladder_leagues": ladders,
    }


def _rating(client: ConsoleClient, token: str, name: str, game: admin_pb2.BotGameStats) -> dict[str, Any]:
    """The bot's rating and place in one game, and its history (the chart's points)."""
    asked = admin_pb2.GetRatingHistoryRequest(game=game.game, bot=name)
    [series] = client.call("GetRatingHistory", asked, token).series
    data = as_dict(game)
    data["history"] = [as_dict(point) | {"version": point.version or None} for point in series.points]
    return data


def own_row(record: admin_pb2.MatchRecord, name: str) -> dict[str, Any]:
    """A match as the bot's page lists it: from the bot's own seat, with whom it met."""
    mine = next(seat for seat in record.seats if seat.bot == name)
    return {
        "match_id": record.match_id,
        "game": record.game,
        "status": record.status,
        "finished_at": moment(record.finished_at),
        "opponents": [seat.bot for seat in record.seats if seat.seat != mine.seat],
        "seat": mine.seat,
        "place": mine.rank or None,
        "score": mine.score,
        "version": mine.version or None,
        "end_reason": end_reason_word(mine.end_reason),
        "detail": mine.detail,
        "strikes": mine.strikes,
    }


def _with_output(
    client: ConsoleClient, token: str, name: str, rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The rows with what the bot printed on stderr in each (a seat that printed nothing and had
    no strike keeps no log): its logs from the newest listed match down, one bounded read."""
    if not rows:
        return rows
    newest = max(int(row["match_id"]) for row in rows)
    asked = admin_pb2.GetBotLogsRequest(bot=name, limit=LOGS_READ, page_token=str(newest + 1))
    logs = {log.match_id: log for log in client.call("GetBotLogs", asked, token).logs}
    for row in rows:
        log = logs.get(row["match_id"])
        row["stderr"], row["stderr_bytes"] = (log.stderr, log.stderr_bytes) if log else ("", 0)
    return rows


def moment(seconds: float) -> str:
    """A time as the console shows it (UTC, to the second); "" for none."""
    if not seconds:
        return ""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def version(client: ConsoleClient, token: str, author: str, name: str, number: int) -> dict[str, Any]:
    own_bot(client, token, author, name)
    found = client.call("GetVersion", admin_pb2.GetVersionRequest(bot=name, number=number), token)
    data = as_dict(found)
    data["final"] = found.status in FINAL
    data["validation"] = [_readable_end(played) for played in data["validation"]]
    data["times"] = version_times(found)
    return data


def version_times(found: admin_pb2.VersionInfo) -> dict[str, str]:
    """When the version was submitted, built (and how long after) and started to play."""
    took = found.built_at - found.created_at if found.built_at and found.created_at else None
    return {
        "submitted": moment(found.created_at),
        "built": moment(found.built_at),
        "build_took": "" if took is None else f"{took:.0f} s",
        "activated": moment(found.activated_at),
    }


def match(client: ConsoleClient, token: str, author: str, name: str, match_id: str) -> dict[str, Any]:
    own_bot(client, token, author, name)
    request = admin_pb2.GetBotLogsRequest(bot=name, match_id=match_id, limit=1)
    logs = client.call("GetBotLogs", request, token).logs
    if not logs:  # a seat that printed nothing and had no strike keeps no log: is it the bot's?
        seated = client.call("GetMatch", admin_pb2.GetMatchRequest(match_id=match_id), token).seats
        if not any(seat.bot == name for seat in seated):
            raise ConsoleError(404, f"{name} has no seat in match {match_id}")
    return {"bot": name, "match_id": match_id, "seats": [_seat_log(log) for log in logs]}


def watch_event(message: admin_pb2.VersionInfo) -> dict[str, Any]:
    """One step of a version as the live view sends it (its script shows the texts as they are)."""
    event: dict[str, Any] = visible_values(
        {
            "status": message.status,
            "status_reason": message.status_reason,
            "build_output": message.build_output,
            "build_clock": build_clock_text(message),
            "validation": [_readable_end(as_dict(played)) for played in message.validation],
            "ab": as_dict(message.ab) if message.HasField("ab") else None,
            "ab_games": [as_dict(game) for game in message.ab_games],
            "final": message.status in FINAL,
        }
    )
    return event


def build_clock_text(message: admin_pb2.VersionInfo) -> str:
    """Where a running build stands against its limit ("42 of 600 CPU-s, 1m10s"); "" otherwise."""
    if message.status != "building" or not message.build_cpu_limit:
        return ""
    wall = int(message.build_wall_seconds)
    elapsed = f"{wall}s" if wall < 60 else f"{wall // 60}m{wall % 60:02d}s"
    return f"{message.build_cpu_seconds:.0f} of {message.build_cpu_limit:g} CPU-s, {elapsed}"


def _seat_log(log: admin_pb2.SeatLog) -> dict[str, Any]:
    return _readable_end(as_dict(log))


def _readable_end(data: dict[str, Any]) -> dict[str, Any]:
    """``END_REASON_TIMEOUT`` as people read it: ``timeout``."""
    data["end_reason"] = str(data.get("end_reason", "")).removeprefix("END_REASON_").lower()
    return data


def notices(client: ConsoleClient, token: str, before: str = "") -> dict[str, Any]:
    """The author's notices, newest first, a page at a time (``before``: the page before's token)."""
    found = client.call("ListNotices", admin_pb2.ListNoticesRequest(limit=NOTICES, page_token=before), token)
    shown = []
    for notice in found.notices:
        data = as_dict(notice)
        data["created_at"] = moment(notice.created_at)
        data["kind"] = NOTICE_KINDS.get(notice.kind, notice.kind)
        shown.append(data)
    return {"notices": shown, "older": found.next_page_token}
