"""`kingmaker init`: a kit for every language, every placeholder filled and the manifest valid;
and the bad paths, each refused with one line and nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kingmaker.games.registry import game_names
from kingmaker.kits.languages import LANGUAGES
from kingmaker.kits.manifest import read_manifest
from kingmaker.kits.starter import contract_protos

from support import REPO

KINGMAKER = str(Path(sys.executable).with_name("kingmaker"))


def init(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KINGMAKER, "init", *arguments], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("lang", [language.name for language in LANGUAGES])
def test_init_writes_a_whole_kit_with_every_placeholder_filled(tmp_path: Path, lang: str) -> None:
    folder = tmp_path / "my-bot"
    done = init(str(folder), "--lang", lang, "-g", "kingsburg", "-g", "kingdoms")
    assert done.returncode == 0, done.stderr
    manifest = read_manifest(folder)
    assert manifest.games == ("kingsburg", "kingdoms")
    assert manifest.language == lang
    for path in folder.rglob("*"):
        if path.is_file():
            assert "{{" not in path.read_text(), f"{path.relative_to(folder)} has a placeholder left"
    readme = (folder / "README.md").read_text()
    assert "my-bot" in readme and "-g kingsburg -g kingdoms" in readme and "kingmaker submit ." in readme
    # a club author's server is the one `kingmaker login` saved, not a port of the kit's choosing
    assert "50051" not in readme and "kingmaker whoami" in readme


def test_a_kit_without_games_plays_every_game(tmp_path: Path) -> None:
    assert init(str(tmp_path / "bot"), "--lang", "cpp").returncode == 0
    assert read_manifest(tmp_path / "bot").games == tuple(game_names())


def test_a_grpc_kit_gets_the_contract_as_the_repository_has_it(tmp_path: Path) -> None:
    """The kit's proto/ is the contract, byte for byte: every game's .proto and the bot's core."""
    assert init(str(tmp_path / "bot"), "--lang", "go").returncode == 0
    copied = {
        str(path.relative_to(tmp_path / "bot" / "proto"))
        for path in (tmp_path / "bot" / "proto").rglob("*.proto")
    }
    expected = {"kingmaker/v1/arena.proto", "kingmaker/v1/common.proto"}
    expected |= {f"kingmaker/{game}/v1/{game}.proto" for game in game_names()}
    assert copied == expected == set(contract_protos())
    for relative in expected:
        assert (tmp_path / "bot" / "proto" / relative).read_bytes() == (
            REPO / "proto" / relative
        ).read_bytes()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--lang", "cobol"],
            "unknown language 'cobol' (known: python, typescript, cpp, go, java, rust, ruby)",
        ),
        (["--lang", "cpp", "-g", "chess"], "unknown game 'chess'"),
        (["--lang", "cpp", "--name", "My Bot"], "'My Bot' cannot name a bot package"),
    ],
    ids=["language", "game", "name"],
)
def test_bad_arguments_are_refused_with_one_line_and_nothing_written(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    done = init(str(tmp_path / "bot"), *arguments)
    assert done.returncode == 1
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_init_never_writes_into_a_folder_that_holds_something(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "precious.txt").write_text("my own work")
    done = init(str(folder), "--lang", "rust")
    assert done.returncode == 1
    assert "already exists and is not an empty folder" in done.stderr
    assert [path.name for path in folder.iterdir()] == ["precious.txt"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mine"], "no staging folder left behind"


def test_init_fills_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert init(str(tmp_path / "empty"), "--lang", "python").returncode == 0
    assert (tmp_path / "empty" / "bot.py").is_file()


def test_games_are_given_comma_separated_and_a_bad_one_is_refused_with_the_games(tmp_path: Path) -> None:
    assert init(str(tmp_path / "two"), "--lang", "python", "--games", "kingsburg, kingdoms").returncode == 0
    assert read_manifest(tmp_path / "two").games == ("kingsburg", "kingdoms")
    assert init(str(tmp_path / "all"), "--lang", "python", "--games", "all").returncode == 0
    assert read_manifest(tmp_path / "all").games == tuple(game_names())
    done = init(str(tmp_path / "bad"), "--lang", "python", "--games", "kingdoms,chess")
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1
    assert "unknown game 'chess': choose among kingdoms, kings_road, kingsburg, kingsville" in done.stderr
    assert not (tmp_path / "bad").exists()


def test_at_a_terminal_init_asks_for_the_games_until_they_are_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from kingmaker.server.cli import app
    from kingmaker.server.cli import init as init_command

    monkeypatch.setattr(init_command, "interactive", lambda: True)
    done = CliRunner().invoke(
        app, ["init", str(tmp_path / "asked"), "--lang", "go"], input="chess\nkingsburg\n"
    )
    assert done.exit_code == 0, done.output
    assert done.output.count("Which games will asked play?") == 2, "asked again after a game it does not know"
    assert "unknown game 'chess'" in done.output
    assert read_manifest(tmp_path / "asked").games == ("kingsburg",), "the game the author named, no other"
    assert "plays kingsburg" in done.stdout


def test_every_kits_manifest_names_its_games() -> None:
    """A kit's own kingmaker.toml says which games it plays (every one: the kit's bot plays them
    all), so a folder submitted as the kit has it never leaves its games to the server to guess."""
    for known in LANGUAGES:
        assert read_manifest(REPO / "kits" / known.name).games == tuple(game_names()), known.name
