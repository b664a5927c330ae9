"""The demo is reproducible and can run again on the same home; the command line answers
--version and `python -m kingmaker`, and its help names what options take; the ladder's plot
counts whole matches."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.server.cli import app
from kingmaker.v1 import admin_pb2

runner = CliRunner()


def standings_of(output: str) -> list[str]:
    """The rows of every ladder table the demo printed (position, bot, ratings, counts)."""
    return [line.strip() for line in output.splitlines() if re.match(r"^\d+\s+[\w-]+\s+-?\d+\.\d\d\s", line)]


@pytest.mark.slow
def test_demo_with_a_seed_gives_the_same_standings_and_runs_again_on_its_home(tmp_path: Path) -> None:
    first = runner.invoke(app, ["demo", "--seed", "5", "--rounds", "1", "--home", str(tmp_path / "a")])
    assert first.exit_code == 0, first.stdout + first.stderr
    second = runner.invoke(app, ["demo", "--seed", "5", "--rounds", "1", "--home", str(tmp_path / "b")])
    assert second.exit_code == 0, second.stdout + second.stderr
    rows = standings_of(first.stdout)
    assert len(rows) == 12  # three bots in each of four games
    assert standings_of(second.stdout) == rows
    again = runner.invoke(app, ["demo", "--seed", "5", "--rounds", "1", "--home", str(tmp_path / "a")])
    assert again.exit_code == 0, again.stdout + again.stderr
    assert any(" 4 " in row or re.search(r"\s4\s+\d+\s+\d\.\d\d", row) for row in standings_of(again.stdout))


def test_demo_says_its_database_is_temporary_unless_given_a_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kingmaker.server.cli import demo

    monkeypatch.setattr(demo, "_play_leagues", lambda client, seed, rounds: None)  # the server part only
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "server-home"))
    scratch = runner.invoke(app, ["demo"])
    assert scratch.exit_code == 0, scratch.stdout + scratch.stderr
    path = Path(re.search(r"database (\S+kingmaker\.db) \(temporary", scratch.stdout).group(1))  # type: ignore[union-attr]
    assert "keep it with --home" in scratch.stdout and not path.exists()  # gone, as it said
    kept = runner.invoke(app, ["demo", "--home", str(tmp_path / "mine")])
    assert kept.exit_code == 0, kept.stdout + kept.stderr
    assert f"database {tmp_path / 'mine' / 'kingmaker.db'}" in kept.stdout and "temporary" not in kept.stdout
    assert (tmp_path / "mine" / "kingmaker.db").exists()


def python_m(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m kingmaker ARGS`` in a terminal 80 columns wide."""
    return subprocess.run(
        [sys.executable, "-m", "kingmaker", *args],
        capture_output=True, text=True, cwd=cwd, timeout=60, env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip


def test_version_and_python_dash_m(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and re.fullmatch(r"kingmaker \d+\.\d+\.\d+\n", result.stdout)
    ran = python_m("--version", cwd=tmp_path)
    assert ran.returncode == 0 and ran.stdout == result.stdout


HELPS = [["ladder", "--help"], ["bot", "add", "--help"], ["league", "create", "--help"]]


@pytest.mark.parametrize("args", HELPS)
def test_help_names_what_options_take(args: list[str], tmp_path: Path) -> None:
    ran = python_m(*args, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "<str>" not in ran.stdout and "<bool>" not in ran.stdout and "<int" not in ran.stdout
    assert "ADDRESS" in ran.stdout and "TOKEN" in ran.stdout
    assert all(len(line) <= 80 for line in ran.stdout.splitlines())


def test_the_plot_counts_whole_matches(tmp_path: Path) -> None:
    from kingmaker.server.cli.ladder import write_plot

    series = [
        admin_pb2.RatingSeries(
            bot=name,
            points=[admin_pb2.RatingPoint(matches=n, conservative=n * 0.5, sigma=1.0) for n in (1, 2, 3)],
        )
        for name in ("a", "b")  # the same ratings: the lines lie on each other
    ]
    captured: dict[str, object] = {}
    import matplotlib.figure

    real_savefig = matplotlib.figure.Figure.savefig

    def keep(figure: matplotlib.figure.Figure, *args: object, **kwargs: object) -> None:
        captured["figure"] = figure
        real_savefig(figure, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matplotlib.figure.Figure, "savefig", keep)
        write_plot("kingdoms", series, tmp_path / "plot.png")
    assert (tmp_path / "plot.png").stat().st_size > 0
    axes = captured["figure"].axes[0]  # type: ignore[attr-defined]
    ticks = [tick for tick in axes.get_xticks() if 1 <= tick <= 3]
    assert ticks and all(float(tick).is_integer() for tick in ticks)
    lines = axes.get_lines()
    assert len({line.get_linestyle() for line in lines}) == 2  # overlapping lines look different
    assert len({line.get_marker() for line in lines}) == 2
