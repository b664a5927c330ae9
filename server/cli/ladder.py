"""``kingmaker ladder``: a game's standings as a table, and its rating history as a plot."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console, fail
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.v1 import admin_pb2


def ladder(
    game: str = typer.Argument(..., help="The game whose ladder to show (or `policy GAME`)."),
    policy_game: str | None = typer.Argument(
        None,
        help="With `ladder policy GAME`: the game whose new-version policy to show or set.",
    ),
    new_version: str | None = typer.Option(
        None,
        "--new-version",
        metavar="POLICY",
        help="With `ladder policy GAME`: what a new version starts from: keep, reset-sigma or reset.",
    ),
    limit: int = typer.Option(
        20, min=bounds.PAGE.low, max=bounds.PAGE.high, help="How many rows: the top N."
    ),
    offset: int = typer.Option(
        0, min=bounds.OFFSET.low, max=bounds.OFFSET.high, help="Skip this many from the top (the next page)."
    ),
    plot: Path | None = typer.Option(
        None, "--plot", help="Also write a PNG of the top bots' rating over their matches to this file."
    ),
    top: int = typer.Option(
        5, min=bounds.PLOTTED_BOTS.low, max=bounds.PLOTTED_BOTS.high, help="How many bots the plot shows."
    ),
    with_people: bool = typer.Option(
        False,
        "--with-people",
        help="The separate ratings of the matches with people (`serve --rate-people`), not the ladder.",
    ),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """A game's standings, best conservative rating (mu - 3 sigma) first; optionally a rating plot.

    `kingmaker ladder policy GAME [--new-version keep|reset-sigma|reset]` shows or sets what a bot's
    rating becomes when a new version of it starts to play."""
    if game == "policy":
        if policy_game is None:
            fail("ladder policy needs a game: kingmaker ladder policy GAME [--new-version ...]")
        _policy(policy_game, new_version, server, admin_token)
        return
    if policy_game is not None or new_version is not None:
        fail("a second game and --new-version go with `kingmaker ladder policy GAME`")
    with admin_client(server, admin_token) as client:
        request = admin_pb2.GetStandingsRequest(
            game=game, limit=limit, offset=offset, with_people=with_people
        )
        answer = client.call("GetStandings", request)
        series = []
        if plot is not None:
            series = client.call(
                "GetRatingHistory", admin_pb2.GetRatingHistoryRequest(game=game, top=top)
            ).series
    if json:
        print_json(as_data(answer))
    else:
        print_standings(answer, with_people)
    if plot is not None:
        write_plot(game, series, plot)


def _rated(value: float, matches: int) -> str:
    """A figure that means something only once the bot has played: a dash before (as the site)."""
    return f"{value:.2f}" if matches else "-"


def print_standings(answer: admin_pb2.GetStandingsResponse, with_people: bool = False) -> None:
    shown = table(
        f"{answer.game} ratings with people" if with_people else f"{answer.game} ladder",
        ("#", "bot", "mu-3σ", "mu", "sigma", "matches", "wins", "avg place", "faults"),
    )
    for row in answer.standings:
        name = row.bot if row.active else f"{row.bot} (inactive)"
        shown.add_row(
            str(row.position), name, _rated(row.conservative, row.matches), f"{row.mu:.2f}",
            f"{row.sigma:.2f}", str(row.matches), str(row.wins), _rated(row.average_rank, row.matches),
            str(row.faults),
        )  # fmt: skip
    print_table(shown)
    count = len(answer.standings)
    if count < answer.total:
        first = answer.standings[0].position if count else 0
        console.print(f"rows {first}-{first + count - 1} of {answer.total} bots (--limit, --offset for more)")
    else:
        console.print(f"{answer.total} bots")


LINE_STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "x")


def write_plot(game: str, series: Sequence[admin_pb2.RatingSeries], output: Path) -> None:
    """Conservative rating over matches for each bot, with a band of one sigma, as a PNG."""
    if not series:
        fail(f"no rated matches of {game} yet: nothing to plot")
    import matplotlib

    matplotlib.use("Agg")  # no display: write the file only
    from matplotlib import pyplot
    from matplotlib.ticker import MaxNLocator

    figure, axes = pyplot.subplots(figsize=(9, 5))
    for number, bot in enumerate(series):
        x = [point.matches for point in bot.points]
        rating = [point.conservative for point in bot.points]
        # Bots whose ratings move together would hide each other: each line gets its own dash
        # and marker, drawn see-through, so one lying on another still shows.
        axes.plot(
            x, rating, label=bot.bot, alpha=0.8, linewidth=1.5 + 0.6 * (len(series) - 1 - number),
            linestyle=LINE_STYLES[number % len(LINE_STYLES)], marker=MARKERS[number % len(MARKERS)],
            markevery=max(1, len(x) // 12), markersize=5,
        )  # fmt: skip
        low = [r - p.sigma for r, p in zip(rating, bot.points, strict=True)]
        high = [r + p.sigma for r, p in zip(rating, bot.points, strict=True)]
        axes.fill_between(x, low, high, alpha=0.12)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # matches are counted whole
    axes.set(
        title=f"{game}: conservative rating (mu - 3 sigma), band of one sigma",
        xlabel="matches",
        ylabel="rating",
    )
    axes.legend()
    figure.tight_layout()
    try:
        figure.savefig(output)
    except OSError as error:
        fail(f"cannot write {output}: {error.strerror or error}")
    console.print(f"wrote {output}")


POLICY_WORDS = {
    "keep": "a new version keeps the rating (mu and sigma) where the old one left it",
    "reset_sigma": "a new version keeps mu, and sigma goes back to its start (quickly relearned)",
    "reset": "a new version starts from the start rating, as a new bot",
}


def _policy(game: str, new_version: str | None, server: str | None, admin_token: str | None) -> None:
    chosen = (new_version or "").replace("-", "_")
    if chosen and chosen not in POLICY_WORDS:
        fail(f"unknown --new-version {new_version!r}: use keep, reset-sigma or reset")
    with admin_client(server, admin_token) as client:
        policy = client.call(
            "SetLadderPolicy", admin_pb2.SetLadderPolicyRequest(game=game, new_version=chosen)
        )
    shown = policy.new_version.replace("_", "-")
    console.print(f"{policy.game}: {shown}: {POLICY_WORDS.get(policy.new_version, '')}", highlight=False)
