"""``kingmaker replay``: re-run a stored match with the engine, move by move.

The match comes from the server (seed, options, every decision); the engine here plays it again.
``--verify`` fails loudly unless the replay reaches the recorded scores and places, and every
seat was shown exactly the observations whose digests the server recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer
from rich.table import Table

from kingmaker.games import serial
from kingmaker.games.api import Action, GameState, Observation
from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.sdk.codec import DIGEST_PREFIX, CodecError, codec_for, digest, options_from_proto
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console, fail
from kingmaker.server.cli.replay_text import MatchText, compact
from kingmaker.server.cli.trials import TRIAL_PREFIX
from kingmaker.server.refereeing.referee import final_ranks
from kingmaker.v1 import admin_pb2, common_pb2


class ReplayMismatch(Exception):
    """The replay did not reach what the server recorded."""


def replay(
    match_id: str = typer.Argument(
        ..., help="The match id (see `kingmaker match list`), or trial:ID for a trial match (`bot trials`)."
    ),
    verify: bool = typer.Option(
        False, "--verify", help="Fail unless the replay matches the record exactly; print the verdict only."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not print every move."),
    moves: bool = typer.Option(False, "--moves", help="Print every move even with --verify."),
    show: bool = typer.Option(
        False, "--show", help="Print each decision with what each acting seat saw, and the chance events."
    ),
    bot: str | None = typer.Option(
        None, "--bot", help="With trial:ID: the bot whose version played it (yours, or any for the admin)."
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Step through a stored match, re-run by the engine, printing each move and the scores.

    With --verify it prints the scores and the verdict only, unless --moves. A version's trial
    match (its validation's or its A/B duel's, never rated) is replayed as trial:ID --bot NAME."""
    with admin_client(server, admin_token) as client:
        record = client.call(*_request(match_id, bot))
    if record.status != "finished":
        fail(f"match {match_id} is {record.status}: only finished matches can be replayed")
    watcher = None
    if show:
        sources = [{a.seat: a.source for a in decision.actions} for decision in record.decisions]
        watcher = MatchText([seat.bot for seat in record.seats], sources, _print_line)
    try:
        printing = not (quiet or show or (verify and not moves))
        state, shown = run_again(record, _print_move if printing else None, watcher)
        problems = differences(record, state, shown) if verify else []
    except (UnknownGameError, CodecError, ValueError) as error:
        fail(f"cannot replay match {match_id}: {error}")
    _print_scores(record, state)
    if problems:
        for problem in problems:
            console.print(f"[bold red]mismatch:[/] {problem}", soft_wrap=True)
        fail(f"replay of match {match_id} does not match the record ({len(problems)} differences)")
    if verify:
        console.print(
            f"[bold green]verified:[/] match {match_id} replays to the recorded end", soft_wrap=True
        )


def _request(match_id: str, bot: str | None) -> tuple[str, Any]:
    """The call that fetches the match: ``GetTrialMatch`` for ``trial:ID``, else ``GetMatch``."""
    if not match_id.startswith(TRIAL_PREFIX):
        if bot is not None:
            fail("--bot goes with a trial match (trial:ID); a ladder match needs no bot")
        return "GetMatch", admin_pb2.GetMatchRequest(match_id=match_id)
    number = match_id.removeprefix(TRIAL_PREFIX)
    if not number.isdecimal() or len(number) > 18:
        fail(f"not a trial match id: {match_id!r} (trial:ID, as `kingmaker bot trials NAME` lists them)")
    if bot is None:
        fail(f"replaying {match_id} needs the bot whose version played it: --bot NAME")
    return "GetTrialMatch", admin_pb2.GetTrialMatchRequest(bot=bot, trial_id=int(number))


def run_again(
    record: admin_pb2.MatchRecord,
    on_move: Callable[[int, int, str, Action], None] | None = None,
    watcher: MatchText | None = None,
) -> tuple[GameState, list[list[str]]]:
    """Play the record's decisions from its seed; return the final state and, per seat, the digest
    of every observation it had at each decision it took part in. A ``watcher`` sees each state."""
    game = get_game(record.game)
    if record.edition and record.edition != game.spec.edition:
        raise ValueError(f"it was played under rules {record.edition}, this engine is {game.spec.edition}")
    codec = codec_for(record.game)
    state = game.new(len(record.seats), record.seed, options_from_proto(record.options))
    shown: list[list[str]] = [[] for _ in record.seats]
    if watcher is not None:
        watcher.start(state)
    recorded = [d for seat in record.observation_digests for d in seat.digests[:1]]
    # Records made before the referee hashed what it sent hold digests of the values as JSON.
    fingerprint: Callable[[Observation], str] = (
        (lambda observation: digest(codec.pack_observation(observation)))
        if not recorded or recorded[0].startswith(DIGEST_PREFIX)
        else serial.digest
    )
    for number, decision in enumerate(record.decisions, start=1):
        joint = {}
        for seat_action in decision.actions:
            seat = seat_action.seat
            shown[seat].append(fingerprint(state.observation(seat)))
            joint[seat] = codec.unpack_action(seat_action.action)
            if on_move is not None:
                on_move(number, seat, record.seats[seat].bot, joint[seat])
        if watcher is not None:
            watcher.decision(number, state, joint)
        state.apply(joint)
    if watcher is not None:
        watcher.end()
    return state, shown


def differences(record: admin_pb2.MatchRecord, state: GameState, shown: list[list[str]]) -> list[str]:
    """Everything in which the replay differs from the record."""
    problems = []
    if not state.is_over():
        return ["the recorded decisions end before the game does"]
    result = state.result()
    faulty = [seat.end_reason not in (common_pb2.END_REASON_FINISHED,) for seat in record.seats]
    ranks = final_ranks(result, faulty)
    for row in record.seats:
        if row.score != result.scores[row.seat]:
            problems.append(
                f"seat {row.seat} ({row.bot}) scored {result.scores[row.seat]}, recorded {row.score}"
            )
        if row.rank != ranks[row.seat]:
            problems.append(f"seat {row.seat} ({row.bot}) placed {ranks[row.seat]}, recorded {row.rank}")
    for seat, recorded in enumerate(record.observation_digests):
        sent, replayed = list(recorded.digests), shown[seat]
        # A seat is shown an observation at each decision until it forfeits, and none after.
        if len(sent) > len(replayed) or (not faulty[seat] and len(sent) != len(replayed)):
            problems.append(f"seat {seat} was asked {len(sent)} times, the replay asks {len(replayed)}")
        elif (first := first_difference(sent, replayed)) is not None:
            problems.append(f"seat {seat} was shown something else at its decision {first + 1}")
    return problems


def first_difference(sent: list[str], replayed: list[str]) -> int | None:
    """The index of the first observation whose replayed digest differs from the recorded one.
    The ladder keeps only the first bytes of each digest (``ladder.compact_logs``), so each
    recorded digest is compared with as much of the replayed one."""
    pairs = enumerate(zip(sent, replayed, strict=False))
    return next((i for i, (kept, full) in pairs if not kept or full[: len(kept)] != kept), None)


def _print_line(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _print_move(number: int, seat: int, bot: str, action: object) -> None:
    console.print(f"{number:>4}  seat {seat} ({bot}): {compact(action)}", highlight=False, soft_wrap=True)


def _print_scores(record: admin_pb2.MatchRecord, state: GameState) -> None:
    result = state.result() if state.is_over() else None
    table = Table(title=f"replay of {record.game} match {record.match_id} (seed {record.seed})")
    for column in ("seat", "bot", "replayed score", "recorded score", "recorded rank"):
        table.add_column(column)
    for seat in record.seats:
        replayed = str(result.scores[seat.seat]) if result is not None else "-"
        table.add_row(str(seat.seat), seat.bot, replayed, str(seat.score), str(seat.rank))
    console.print(table)
