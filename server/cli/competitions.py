"""``kingmaker competition``: create a competition, enter bots, select their finals version, follow
it (phase, time left, entries, standings, decisions), start its finals (docs/competitions.md)."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console, fail
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.v1 import admin_pb2

app = typer.Typer(
    help="Competitions: a deadline, frozen versions, finals and a winner.", no_args_is_help=True
)

FINALS = ("ladder", "bracket", "swiss", "double_elimination")


def _time(text: str, option: str) -> str:
    """The time as the server takes it, or a one-line error naming the option."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        fail(f"{option}: bad time {text!r}; give ISO 8601 UTC, like 2026-12-01T18:00:00Z")
    if moment.tzinfo is None:
        fail(f"{option}: time {text!r} has no zone; give it in UTC, like 2026-12-01T18:00:00Z")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@app.command("create")
def create(
    name: str = typer.Argument(..., help="A unique name (at most 40 characters)."),
    game: str = typer.Option(..., "--game", "-g", help="The game it plays."),
    closes: str = typer.Option(..., "--closes", help="The deadline, ISO 8601 UTC: 2026-12-01T18:00:00Z."),
    opens: str = typer.Option("", "--opens", help="When its ladder starts (default: now)."),
    finals_at: str = typer.Option(
        "", "--finals-at", help="When its finals start by themselves (default: at --closes)."
    ),
    players: int = typer.Option(0, "--players", "-p", min=0, max=5, help="Seats per match (default: 2)."),
    finals: str = typer.Option(
        "ladder",
        "--finals",
        help="ladder (reset ladder with cuts), bracket (2 seats, single elimination), swiss, "
        "or double_elimination (2 seats).",
    ),
    rounds: int = typer.Option(
        0, min=0, max=50, help="ladder: round robins per stage (default 2); swiss: rounds (default 3)."
    ),
    cut: list[int] = typer.Option([], "--cut", help="ladder: how many go on after a stage. Repeatable."),
    best_of: int = typer.Option(
        0,
        "--best-of",
        min=0,
        max=25,
        help="bracket, double_elimination: duplicate pairs a meeting (3); swiss: seeds a table (1).",
    ),
    tier: list[str] = typer.Option(
        [],
        "--tier",
        help="NAME=BOSSBOT: a tier guarded by that bot, lowest first; the top one may be just NAME. "
        "Repeatable.",
    ),
    promote_after: int = typer.Option(
        0,
        "--promote-after",
        min=bounds.PROMOTE_AFTER.low,
        max=bounds.PROMOTE_AFTER.high,
        help="Tiers: matches in a tier before promotion above its boss (10).",
    ),
    relegate_after: int = typer.Option(
        0,
        "--relegate-after",
        min=bounds.RELEGATE_AFTER.low,
        max=bounds.RELEGATE_AFTER.high,
        help="Tiers: last places in a row in a tier before an entry moves down one (0: never).",
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Create a competition: open now (or at --opens) until --closes, then its finals."""
    if finals not in FINALS:
        raise typer.BadParameter(f"must be one of {', '.join(FINALS)}", param_hint="--finals")
    tiers = [
        admin_pb2.CompetitionTier(name=text.partition("=")[0], boss=text.partition("=")[2]) for text in tier
    ]
    request = admin_pb2.CreateCompetitionRequest(
        name=name, game=game, closes_at=_time(closes, "--closes"),
        opens_at=_time(opens, "--opens") if opens else "",
        finals_at=_time(finals_at, "--finals-at") if finals_at else "",
        players=players, finals_format=finals, rounds=rounds, cuts=cut, best_of=best_of,
        tiers=tiers, promote_after=promote_after, relegate_after=relegate_after,
    )  # fmt: skip
    with admin_client(server, admin_token) as client:
        info = client.call("CreateCompetition", request)
    console.print(
        f"created competition [bold]{info.name}[/]: {info.game}, open until {info.closes_at}; "
        f"finals start {info.finals_at}"
    )


@app.command("enter")
def enter(
    name: str = typer.Argument(..., help="The competition."),
    bot: str = typer.Argument(..., help="A bot of yours (the admin: any)."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Enter a bot; it plays the competition's ladder until the deadline."""
    with admin_client(server, admin_token) as client:
        info = client.call("EnterCompetition", admin_pb2.CompetitionEntryRequest(name=name, bot=bot))
    console.print(f"{bot} entered {info.name} (closes {info.closes_at})")


@app.command("leave")
def leave(
    name: str = typer.Argument(..., help="The competition."),
    bot: str = typer.Argument(..., help="Your entry (the admin: any)."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Take your entry out of a competition (before the deadline)."""
    with admin_client(server, admin_token) as client:
        info = client.call("LeaveCompetition", admin_pb2.CompetitionEntryRequest(name=name, bot=bot))
    console.print(f"{bot} left {info.name}")


@app.command("select")
def select(
    name: str = typer.Argument(..., help="The competition."),
    bot: str = typer.Argument(..., help="Your entry."),
    version: int = typer.Argument(
        ...,
        min=bounds.VERSION.low,
        max=bounds.VERSION.high,
        help="The version its finals play (0: the one active at the deadline).",
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Choose the version your entry plays its finals with (before the deadline)."""
    request = admin_pb2.CompetitionEntryRequest(name=name, bot=bot, version=version)
    with admin_client(server, admin_token) as client:
        client.call("SelectCompetitionVersion", request)
    shown = f"v{version}" if version else "the version active at the deadline"
    console.print(f"{bot} will play the finals of {name} with {shown}")


@app.command("finals")
def finals_(
    name: str = typer.Argument(..., help="The competition."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Start the finals early (after the deadline, before their time), or resume them: they
    start by themselves at their time."""
    with admin_client(server, admin_token) as client:
        info = client.call("StartFinals", admin_pb2.GetCompetitionRequest(name=name))
    leagues = [stage.league for stage in info.stages if stage.stage == info.stage and not stage.finished]
    console.print(f"{info.name}: {info.phase}, stage {info.stage}; playing {', '.join(leagues) or 'nothing'}")


@app.command("status")
def status(
    name: str = typer.Argument(..., help="The competition."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Phase, time left, entries (BOT vN), standings and every decision."""
    with admin_client(server, admin_token) as client:
        info = client.call("GetCompetition", admin_pb2.GetCompetitionRequest(name=name))
    if json:
        print_json(as_data(info))
        return
    print_competition(info)


@app.command("list")
def list_(
    limit: int = typer.Option(
        100, min=bounds.PAGE.low, max=bounds.PAGE.high, help="At most this many, oldest first."
    ),
    after: str = typer.Option("", "--after", help="Only competitions after this page token (the next page)."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """List the competitions, a page at a time."""
    with admin_client(server, admin_token) as client:
        request = admin_pb2.ListCompetitionsRequest(limit=limit, page_token=after)
        answer = client.call("ListCompetitions", request)
    if json:
        print_json(as_data(answer))
        return
    shown = table("Competitions", ("name", "game", "phase", "closes", "left", "winner"))
    for info in answer.competitions:
        shown.add_row(info.name, info.game, info.phase, info.closes_at, time_left(info), info.winner or "-")
    print_table(shown)
    if answer.next_page_token:
        console.print(f"more: --after {answer.next_page_token}")


def time_left(info: admin_pb2.CompetitionInfo) -> str:
    """How long until the deadline, by the server's clock ("-" once it has passed)."""
    left = (_parse(info.closes_at) - _parse(info.now)).total_seconds()
    if info.phase != "open" or left <= 0:
        return "-"
    days, rest = divmod(int(left), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    return (f"{days}d " if days else "") + f"{hours:02d}:{minutes:02d}:{seconds:02d}"


def entry_version(entry: admin_pb2.CompetitionEntry) -> str:
    if entry.frozen_version:
        return f"v{entry.frozen_version}"
    if entry.selected_version:
        return f"v{entry.selected_version} (selected)"
    return f"v{entry.active_version}" if entry.active_version else "no version yet"


def print_competition(info: admin_pb2.CompetitionInfo) -> None:
    finals = {
        "bracket": f"bracket, best of {info.best_of}",
        "double_elimination": f"double elimination, best of {info.best_of} duplicate pairs a meeting",
        "swiss": f"{info.rounds} Swiss rounds, {info.best_of} seeds a table",
    }.get(
        info.finals_format,
        f"reset ladder, {info.rounds} round robins a stage, cuts {list(info.cuts) or 'none'}",
    )
    console.print(f"[bold]{info.name}[/]: {info.game}, {info.players} seats; finals: {finals}")
    phase = info.phase + (f" (stage {info.stage})" if info.phase == "finals" else "")
    console.print(f"phase: {phase}; closes {info.closes_at}; time left: {time_left(info)}")
    if info.phase in ("open", "closed"):
        console.print(f"finals start by themselves at {info.finals_at}")
    if info.winner:
        console.print(f"winner: [bold]{info.winner}[/]")
    if info.tiers:
        guarded = ", ".join(f"{t.name} (boss {t.boss or 'none'})" for t in info.tiers)
        console.print(
            f"tiers, lowest first: {guarded}; promotion after {info.promote_after} matches in a tier"
            + (
                f"; relegation after {info.relegate_after} last places in a row"
                if info.relegate_after
                else ""
            )
        )
    entries = (
        ", ".join(f"{e.bot} {entry_version(e)}" + (f" in {e.tier}" if e.tier else "") for e in info.entries)
        or "none yet"
    )
    console.print(f"entries: {entries}", soft_wrap=True)
    swiss = info.finals_format == "swiss" and info.phase in ("finals", "final")
    tiered = any(row.tier for row in info.standings)
    columns = ("#", "bot", "version", "points" if swiss else "rating", "matches", "wins", "note")
    shown = table("Standings", (("tier",) if tiered else ()) + columns)
    for row in info.standings:
        shown.add_row(
            *((row.tier,) if tiered else ()), str(row.place), row.bot,
            f"v{row.version}" if row.version else "-",
            f"{row.points:g} (Buchholz {row.buchholz:g})" if swiss else f"{row.conservative:.2f}",
            str(row.matches), str(row.wins),
            row.note,
        )  # fmt: skip
    print_table(shown)
    if info.decisions:
        decided = table("Decisions", ("when", "what", "why"), wrap=("why",))
        for decision in info.decisions:
            decided.add_row(decision.decided_at, decision.kind, decision.reason)
        print_table(decided)


def _parse(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
