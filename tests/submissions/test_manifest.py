"""The manifest, kingmaker.toml, and the layouts detected without one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from submission_bots import write

from kingmaker.server.building.manifest import ManifestError, launch_command, parse_manifest, read_manifest


def test_a_full_manifest_is_read_as_written() -> None:
    manifest = parse_manifest(
        'run = "./bot --fast \'a b\'"\nbuild = "make"\nprotocol = "json-lines"\nlanguage = "cpp"\n'
        'games = ["kingdoms", "kingsburg"]\n'
    )
    assert manifest.run == ("./bot", "--fast", "a b")
    assert (manifest.build, manifest.protocol, manifest.language) == ("make", "json-lines", "cpp")
    assert manifest.games == ("kingdoms", "kingsburg") and manifest.detected == ""
    assert manifest.as_dict()["games"] == ["kingdoms", "kingsburg"], "kept as the list it is"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('build = "make"', 'needs run = "the command that starts the bot"'),
        ('run = "./bot"\nprotocol = "http"', "one of grpc, json-lines, json-lines-compact, not 'http'"),
        ('run = "./bot"\nbuld = "make"', "unknown key 'buld'"),
        ('run = "./bot"\ngames = "kingdoms"', "games must be a list of names"),
        ('run = "./bot', "is not valid TOML"),
        ('run = "\'unclosed"', "cannot split run"),
    ],
)
def test_a_wrong_manifest_is_refused_in_one_line(text: str, said: str) -> None:
    with pytest.raises(ManifestError) as caught:
        parse_manifest(text)
    assert said in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("files", "run", "build"),
    [
        ({"bot.py": "", "Makefile": ""}, ("python", "bot.py"), ""),
        ({"main.py": ""}, ("python", "main.py"), ""),
        ({"package.json": '{"main": "src/bot.js"}'}, ("node", "src/bot.js"), ""),
        ({"package.json": '{"scripts": {"build": "tsc"}}'}, ("node", "index.js"), "npm run build --offline"),
        ({"Makefile": "all:\n\tcc -o MyBot x.c\n"}, ("./MyBot",), "make"),
        ({"Makefile": "bot: bot.c\n"}, ("./bot",), "make"),
        (
            {"CMakeLists.txt": "add_executable(mine main.cpp)"},
            ("./build/mine",),
            "cmake -S . -B build && cmake --build build",
        ),
        (
            {"Cargo.toml": '[package]\nname = "crab"\n'},
            ("./target/release/crab",),
            "cargo build --release --offline",
        ),
        ({"pom.xml": ""}, ("java", "-jar", "bot.jar"), "mvn -o -q package && cp target/*.jar bot.jar"),
        ({"MyBot.java": ""}, ("java", "-cp", "classes", "MyBot"), "javac -d classes MyBot.java"),
    ],
)
def test_the_layout_detected_without_a_manifest_says_what_it_chose(
    tmp_path: Path, files: dict[str, str], run: tuple[str, ...], build: str
) -> None:
    manifest = read_manifest(write(tmp_path / "bot", files))
    assert (manifest.run, manifest.build) == (run, build)
    first = next(iter(files))
    assert manifest.detected.startswith("a single .java file" if first.endswith(".java") else first)


def test_go_builds_with_its_vendor_folder_or_debians_go_libraries(tmp_path: Path) -> None:
    plain = read_manifest(write(tmp_path / "plain", {"go.mod": "module bot\n"}))
    assert "GO111MODULE=off GOPATH=/usr/share/gocode go build" in plain.build
    vendored = write(tmp_path / "vendored", {"go.mod": "module bot\n"})
    (vendored / "vendor").mkdir()
    assert "go build -mod=vendor" in read_manifest(vendored).build


def test_a_folder_with_nothing_known_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"no kingmaker\.toml and no layout the server knows"):
        read_manifest(write(tmp_path / "bot", {"README": ""}))


def test_python_runs_with_the_servers_interpreter_and_json_lines_behind_the_bridge() -> None:
    assert launch_command(("python3", "bot.py"), "grpc") == [sys.executable, "bot.py"]
    assert launch_command(("./bot",), "json-lines") == [
        sys.executable,
        "-m",
        "kingmaker",
        "bridge",
        "--",
        "./bot",
    ]
    assert launch_command(("./pythonic",), "grpc") == ["./pythonic"]
