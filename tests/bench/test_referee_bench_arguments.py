"""bench/referee.py says its options and refuses a word it does not know, where it once ignored
every such word and ran the whole bench, for ``--help`` too."""

from __future__ import annotations

from types import ModuleType

import pytest
from bench_modules import BENCH, load_bench


@pytest.fixture
def referee(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCH))  # the bench's own imports (rates, table)
    return load_bench("referee")


def test_help_shows_the_options_and_runs_nothing(
    referee: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        referee.parse_arguments(["--help"])
    assert ended.value.code == 0
    assert "--split" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["kingdoms"], "games are chosen only with --transport"),
        (["--split", "--live"], "not allowed with argument"),
    ],
)
def test_a_word_it_does_not_know_is_refused(
    referee: ModuleType, argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        referee.parse_arguments(argv)
    assert ended.value.code == 2
    assert said in capsys.readouterr().err


def test_the_transport_rows_take_games(referee: ModuleType) -> None:
    chosen = referee.parse_arguments(["--transport", "--quick", "kingdoms", "kingsville"])
    assert (chosen.transport, chosen.quick, chosen.games) == (True, True, ["kingdoms", "kingsville"])
    assert not referee.parse_arguments([]).split
