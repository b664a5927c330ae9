"""`kingmaker doctor` and the readiness probes behind it: a missing program, a failing trivial
build and a ready toolchain are told apart, and the install line names what is missing."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from kingmaker.kits import languages
from kingmaker.kits.languages import Language, Probe, check, install_line, install_lines, language

KINGMAKER = str(Path(sys.executable).with_name("kingmaker"))


def a_language(programs: tuple[str, ...] = ("sh",), probe: Probe | None = None) -> Language:
    return Language("toy", "Toy", "grpc", ("toy-compiler", "libtoy-dev"), programs, probe, "toy 1.0")


def test_a_missing_program_is_named() -> None:
    readiness = check(a_language(programs=("sh", "no-such-compiler-here")))
    assert not readiness.ready
    assert readiness.detail == "not found: no-such-compiler-here"


def test_a_trivial_build_that_fails_is_reported_with_its_last_line() -> None:
    readiness = check(a_language(probe=Probe("cat main.toy >&2; exit 3", {"main.toy": "syntax error here"})))
    assert not readiness.ready
    assert readiness.detail == "a trivial build failed: syntax error here"


def test_a_trivial_build_that_works_makes_the_language_ready() -> None:
    readiness = check(a_language(probe=Probe("test -f main.toy", {"main.toy": "fine"})))
    assert readiness.ready and readiness.detail == ""


def test_a_probe_that_hangs_is_stopped() -> None:
    readiness = check(a_language(probe=Probe("sleep 30")), timeout=0.5)
    assert not readiness.ready
    assert "took more than" in readiness.detail


def test_the_install_line_names_each_missing_package_once() -> None:
    other = Language("toy2", "Toy 2", "grpc", ("libtoy-dev", "toy2"), (), None, "")
    assert install_line([a_language(), other]) == "apt-get install -y libtoy-dev toy-compiler toy2"
    assert install_line([]) is None


def test_each_language_gets_an_install_line_of_its_own() -> None:
    other = Language("toy2", "Toy 2", "grpc", ("libtoy-dev", "toy2"), (), None, "")
    lines = dict(install_lines([a_language(), other]))
    assert lines == {
        a_language(): "apt-get install -y libtoy-dev toy-compiler",
        other: "apt-get install -y libtoy-dev toy2",
    }
    installed = Language("toy3", "Toy 3", "grpc", ("dpkg",), (), None, "")  # dpkg lists itself
    assert install_lines([installed]) == [], "what is installed is not installed again"


def test_the_doctor_says_python_is_ready_here() -> None:
    done = subprocess.run(
        [KINGMAKER, "doctor", "--lang", "python"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Python" in done.stdout and "yes" in done.stdout
    assert "every language above can be built here" in done.stdout


def test_the_doctor_refuses_an_unknown_language() -> None:
    done = subprocess.run(
        [KINGMAKER, "doctor", "--lang", "cobol"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "unknown language 'cobol'" in done.stderr


def test_the_go_probe_builds_in_gos_own_cache_or_its_folders_when_go_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe compiles all of grpc-go: in Go's own build cache a second doctor run (and CI's
    suite after its install step's check) finds it built. A `go` stand-in records the cache each
    build was given; `go env GOCACHE` says "off" where Go has no home for one."""
    seen = tmp_path / "seen"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "go").write_text(
        "#!/bin/sh\n"
        'if [ "$1" = env ]; then echo "$FAKE_GOCACHE"; exit 0; fi\n'
        f'echo "$GOCACHE" >> {seen}\n'
        'printf "#!/bin/sh\\n" > probe; chmod +x probe\n'
    )
    (fake / "go").chmod(0o755)
    monkeypatch.setattr(languages, "BUILD_PATH", f"{fake}:{languages.BUILD_PATH}")
    go = dataclasses.replace(language("go"), programs=("go",))

    monkeypatch.setenv("FAKE_GOCACHE", str(tmp_path / "home-cache"))
    assert check(go).ready
    monkeypatch.setenv("FAKE_GOCACHE", "off")
    assert check(go).ready

    own, fallback = seen.read_text().splitlines()
    assert own == str(tmp_path / "home-cache")
    assert fallback.endswith("/cache") and Path(fallback).parent.name.startswith("kingmaker-probe-")
