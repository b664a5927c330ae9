"""The jail shows each interpreter its distribution's configuration, so a bot behaves in the jail
as it does outside. Before, PHP ran there without its php.ini and printed its warnings on stdout,
where a bridged bot's replies go: three warnings in a match forfeited the seat (issue 46)."""

from __future__ import annotations

import shutil

import pytest
from sandbox_helpers import needs_jail, run_to_end

from kingmaker.server.jail.launcher import SandboxPolicy

pytestmark = needs_jail

# Each prints, on stderr, where its configuration came from and one setting read from it.
PROBES = {
    "php": (
        "php",
        "-r",
        'fwrite(STDERR, "config: " . php_ini_loaded_file() . " display_errors="'
        ' . ini_get("display_errors") . "\\n");',
    ),
    "perl": ("perl", "-e", 'print STDERR "config: ", (grep { m{^/etc/perl} && -d } @INC), "\\n";'),
    # Debian's own Python (not a user's pyenv): its sitecustomize lives in /etc/python3.X.
    "/usr/bin/python3": (
        "/usr/bin/python3",
        "-c",
        "import sys\ntry:\n import sitecustomize as s\nexcept ImportError: s = None\n"
        "print('config:', getattr(s, '__file__', None), file=sys.stderr)",
    ),
}


@pytest.mark.parametrize("language", sorted(PROBES))
def test_an_interpreter_reads_the_same_configuration_in_the_jail_as_outside(language: str) -> None:
    if shutil.which(language) is None:
        pytest.skip(f"{language} is not installed (scripts/install-system-deps installs it)")
    outside = run_to_end(PROBES[language], SandboxPolicy(isolate=False))
    jailed = run_to_end(PROBES[language], SandboxPolicy())
    assert jailed.jailed and not outside.jailed
    said = [line for line in outside.stderr.splitlines() if line.startswith("config: ")]
    assert said and said[0] not in ("config: ", "config:  display_errors=1"), outside.stderr
    assert [line for line in jailed.stderr.splitlines() if line.startswith("config: ")] == said, jailed.stderr
