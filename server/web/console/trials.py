"""What the console shows of a bot's trial matches (its versions' validation and A/B duel matches,
never rated): the list, one version's or all, and one match with every move. Read through the
Admin API with the author's token (``ListTrialMatches``, ``GetTrialMatch``: the bot's owner only),
after ``own_bot`` has said the bot is the signed-in author's."""

from __future__ import annotations

from typing import Any

from kingmaker.sdk.codec import CodecError, GameCodec, codec_for
from kingmaker.server.web.console.client import ConsoleClient
from kingmaker.server.web.console.data import moment, own_bot
from kingmaker.server.web.replay import action_text
from kingmaker.server.web.seat_words import end_reason_word, seat_bot
from kingmaker.v1 import admin_pb2, common_pb2

SHOWN = 200
"""The trial matches a page lists (a version's own page lists that version's)."""
WHY = {"validation": "validation", "duel": "A/B duel"}
"""Why a version played a trial match, as people read it."""


def trials(
    client: ConsoleClient, token: str, author: str, name: str, version: int | None, before: str = ""
) -> dict[str, Any]:
    """A page of the bot's trial matches (``version``'s only, when given), newest first: the
    newest page, or the one older than the trial match ``before``; ``older``: the next page's."""
    own_bot(client, token, author, name)
    asked = admin_pb2.ListTrialMatchesRequest(bot=name, version=version or 0, limit=SHOWN, page_token=before)
    found = client.call("ListTrialMatches", asked, token)
    return {
        "bot": name,
        "version": version,
        "shown": SHOWN,
        "trials": [_row(trial) for trial in found.matches],
        "before": before,
        "older": found.next_page_token,
    }


def trial(client: ConsoleClient, token: str, author: str, name: str, trial_id: int) -> dict[str, Any]:
    """One trial match: its seats and every decision, each action as people read it."""
    own_bot(client, token, author, name)
    record = client.call("GetTrialMatch", admin_pb2.GetTrialMatchRequest(bot=name, trial_id=trial_id), token)
    codec = codec_for(record.game)
    bots = {seat.seat: seat_bot(seat) for seat in record.seats}
    steps = [
        {"step": number, "moves": [_move(codec, bots, move) for move in joint.actions]}
        for number, joint in enumerate(record.decisions, start=1)
    ]
    return {
        "id": trial_id,
        "bot": name,
        "about": record.status_reason,
        "status": record.status,
        "game": record.game,
        "edition": record.edition,
        "seed": record.seed,
        "played_at": moment(record.finished_at),
        "seats": [_seat(seat) for seat in record.seats],
        "steps": steps,
        "replay": f"kingmaker replay trial:{trial_id} --bot {name}",
    }


def _row(trial: admin_pb2.TrialMatchInfo) -> dict[str, Any]:
    """A trial match as the list shows it: from the version's own seat, with whom it met."""
    mine = _own_seat(trial.seats, trial.bot, trial.version)
    return {
        "id": trial.id,
        "version": trial.version,
        "purpose": trial.purpose,
        "why": WHY.get(trial.purpose, trial.purpose),
        "game": trial.game,
        "played_at": moment(trial.played_at),
        "opponents": [seat_bot(seat) for seat in trial.seats if mine is None or seat.seat != mine.seat],
        "players": len(trial.seats),
        "place": mine.rank if mine is not None else None,
        "score": mine.score if mine is not None else None,
        "end_reason": end_reason_word(mine.end_reason) if mine is not None else "",
    }


def _own_seat(seats: Any, bot: str, version: int) -> common_pb2.SeatResult | None:
    """The seat of the version on trial: in a duel both seats are the bot's, told apart by version."""
    own = [seat for seat in seats if seat.bot == bot]
    return next((seat for seat in own if not version or seat.version == version), own[0] if own else None)


def _seat(seat: common_pb2.SeatResult) -> dict[str, Any]:
    return {
        "seat": seat.seat,
        "bot": seat_bot(seat),
        "score": seat.score,
        "place": seat.rank,
        "end_reason": end_reason_word(seat.end_reason),
        "detail": seat.detail,
    }


def _move(codec: GameCodec, bots: dict[int, str], move: admin_pb2.SeatAction) -> dict[str, Any]:
    """One seat's action in a decision, as people read it."""
    try:
        action = action_text(codec.unpack_action(move.action))
    except CodecError as error:  # stored by this server, so not expected: say so rather than fail
        action = f"(unreadable: {error})"
    return {"seat": move.seat, "bot": bots.get(move.seat, ""), "action": action, "source": move.source}
