"""``kingmaker league export`` and ``league table``: a league's results to take away, as CSV or
JSON rows per seat, or as a crosstable of head-to-head scores, places, faults and think time."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import typer

from kingmaker.server.cli.common import AdminClient, ServerOption, TokenOption, admin_client, console, fail
from kingmaker.server.cli.crosstable import Crosstable, crosstable, end_reason
from kingmaker.server.cli.output import JsonOption, print_json, print_table, table
from kingmaker.server.visible_text import visible
from kingmaker.v1 import admin_pb2

EXPORT_FORMATS = ("csv", "json")
PAGE = 1000

SEAT_COLUMNS = (
    "match_id", "league", "game", "seed", "status", "status_reason", "rated", "started_at",
    "finished_at", "seat", "bot", "version", "score", "rank", "end_reason", "strikes", "detail", "decisions",
    "think_ms_total", "think_ms_p50", "think_ms_p99",
)  # fmt: skip
"""One CSV row per seat of each match, oldest match first."""


def export(
    name: str = typer.Argument(..., help="The league's name."),
    format: str = typer.Option("csv", "--format", "-f", help="csv (a row per seat) or json (a match each)."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write to this file (default: standard output)."
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Every match of a league, oldest first: seed, status, times, and per seat the bot, score,
    place, how it ended, strikes and think time."""
    if format not in EXPORT_FORMATS:
        fail(f"unknown --format {format!r}: use csv or json")
    if output is not None and not output.parent.is_dir():
        fail(f"cannot write {output}: no folder {output.parent}")
    with admin_client(server, admin_token) as client:
        client.call("GetLeague", admin_pb2.GetLeagueRequest(name=name))
        matches = [match_data(record) for record in league_matches(client, name)]
    text = _csv(matches) if format == "csv" else json.dumps(matches, indent=2) + "\n"
    if output is None:  # shown in a terminal: control characters as escapes (a file keeps them)
        typer.echo(visible(text), nl=False)
        return
    try:
        output.write_text(text)
    except OSError as error:
        fail(f"cannot write {output}: {error.strerror or error}")
    console.print(f"wrote {len(matches)} matches of {name} to {output}", highlight=False)


def table_(
    name: str = typer.Argument(..., help="The league's name."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """A league's crosstable: each bot's head-to-head score against each other (1 for placing
    ahead, 1/2 for a shared place, ± its standard error), its places, faults and time per decision;
    and how often each pair met."""
    with admin_client(server, admin_token) as client:
        league = client.call("GetLeague", admin_pb2.GetLeagueRequest(name=name))
        result = crosstable(league_matches(client, name))
        pairs = client.call("GetLeaguePairs", admin_pb2.GetLeagueRequest(name=name)).pairs
    if json:
        print_json(_table_data(league, result) | {"pairs": [_pair_data(pair) for pair in pairs]})
        return
    print_crosstable(league, result)
    print_meetings(league, pairs, result.bots)


def print_meetings(
    league: admin_pb2.LeagueInfo, pairs: Sequence[admin_pb2.LeaguePair], order: Sequence[str] = ()
) -> None:
    """How often each pair of bots played each other: the matchmaker's mixing at a glance. Bots
    are numbered in ``order`` (the crosstable's, so a number is the same bot in both tables),
    then the league's bots that have no result yet."""
    if not pairs:
        return
    played = {(p.bot, p.other): p.played for p in pairs} | {(p.other, p.bot): p.played for p in pairs}
    bots = [*order, *(bot for bot in league.bots if bot not in order)]
    numbers = [str(n) for n in range(1, len(bots) + 1)]
    meetings = table("meetings: rated matches each pair played together", ("#", "bot", *numbers))
    for label, bot in zip(numbers, bots, strict=True):
        cells = ["" if bot == other else str(played.get((bot, other), 0)) for other in bots]
        meetings.add_row(label, bot, *cells)
    print_table(meetings)


def _pair_data(pair: admin_pb2.LeaguePair) -> dict[str, Any]:
    return {"bot": pair.bot, "other": pair.other, "planned": pair.planned, "played": pair.played}


def league_matches(client: AdminClient, name: str) -> Iterator[admin_pb2.MatchRecord]:
    """Every match of the league, oldest first (read a page at a time, newest first)."""
    pages: list[list[admin_pb2.MatchRecord]] = []
    token = ""
    while True:
        answer = client.call(
            "ListMatches", admin_pb2.ListMatchesRequest(league=name, limit=PAGE, page_token=token)
        )
        pages.append(list(answer.matches))
        token = answer.next_page_token
        if not token:
            break
    for page in reversed(pages):
        yield from reversed(page)


def match_data(record: admin_pb2.MatchRecord) -> dict[str, Any]:
    times = {time.seat: time for time in record.seat_times}
    return {
        "match_id": record.match_id,
        "league": record.league,
        "game": record.game,
        "seed": record.seed,
        "status": record.status,
        "status_reason": record.status_reason,
        "rated": record.rated,
        "started_at": _when(record.started_at),
        "finished_at": _when(record.finished_at),
        "seats": [
            {
                "seat": seat.seat,
                "bot": seat.bot,
                "version": seat.version or None,
                "score": seat.score if seat.end_reason else None,
                "rank": seat.rank or None,
                "end_reason": end_reason(seat) or None,
                "strikes": seat.strikes,
                "detail": seat.detail,
                "decisions": times[seat.seat].decisions if seat.seat in times else None,
                "think_ms_total": round(times[seat.seat].total_ms, 2) if seat.seat in times else None,
                "think_ms_p50": round(times[seat.seat].p50_ms, 2) if seat.seat in times else None,
                "think_ms_p99": round(times[seat.seat].p99_ms, 2) if seat.seat in times else None,
            }
            for seat in record.seats
        ],
    }


def print_crosstable(league: admin_pb2.LeagueInfo, result: Crosstable) -> None:
    title = f"league {league.name}: {league.game}, {result.matches} finished matches"
    if not result.bots:
        console.print(f"{title}: no results yet")
        return
    bots = table(title, ("#", "bot", "matches", "mean place", "places", "faults", "ms/decision"))
    bots.caption = "places: how many times 1st, 2nd, ...; ms/decision: its mean think time"
    for number, bot in enumerate(result.bots, start=1):
        line = result.lines[bot]
        most = max(line.places, default=0)
        places = ",".join(str(line.places.count(place)) for place in range(1, most + 1)) or "-"
        per_decision = f"{line.ms_per_decision:.1f}" if line.ms_per_decision is not None else "-"
        bots.add_row(
            str(number), bot, str(line.matches), f"{line.mean_place:.2f}" if line.places else "-",
            places, str(line.faults), per_decision,
        )  # fmt: skip
    print_table(bots)
    numbers = [str(n) for n in range(1, len(result.bots) + 1)]
    pairs = table("head to head: row's score against column (± standard error)", ("#", "bot", *numbers))
    pairs.caption = "error over independent results (a duplicate group counts once), Agresti-Coull"
    for label, bot in zip(numbers, result.bots, strict=True):
        cells = []
        for other in result.bots:
            pair = result.pairs.get((bot, other))
            cells.append("" if pair is None else _score(pair.score, pair.error))
        pairs.add_row(label, bot, *cells)
    print_table(pairs)


def _score(score: float, error: float) -> str:
    return f"{score:.2f}" if math.isnan(error) else f"{score:.2f}±{error:.2f}"


def _table_data(league: admin_pb2.LeagueInfo, result: Crosstable) -> dict[str, Any]:
    return {
        "league": league.name,
        "game": league.game,
        "matches": result.matches,
        "bots": [
            {
                "bot": bot,
                "matches": result.lines[bot].matches,
                "mean_place": result.lines[bot].mean_place or None,
                "places": result.lines[bot].places,
                "faults": result.lines[bot].faults,
                "ms_per_decision": result.lines[bot].ms_per_decision,
                "head_to_head": {
                    other: {
                        "meetings": pair.meetings,
                        "observations": pair.observations,
                        "score": pair.score,
                        "error": None if math.isnan(pair.error) else pair.error,
                    }
                    for other in result.bots
                    if (pair := result.pairs.get((bot, other))) is not None
                },
            }
            for bot in result.bots
        ],
    }


def _csv(matches: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SEAT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for match in matches:
        shared = {key: value for key, value in match.items() if key != "seats"}
        for seat in match["seats"]:
            writer.writerow({**shared, **{k: "" if v is None else v for k, v in seat.items()}})
    return buffer.getvalue()


def _when(seconds: float) -> str | None:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds") if seconds else None
