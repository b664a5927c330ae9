"""``kingmaker doctor``: which languages this machine can build bots in, and what to install."""

from __future__ import annotations

import typer

from kingmaker.kits.languages import LANGUAGES, check, install_lines
from kingmaker.server.cli.common import console
from kingmaker.server.cli.output import print_table, table


def doctor(
    lang: list[str] = typer.Option([], "--lang", "-l", help="Check only this language (repeatable)."),
) -> None:
    """Say which languages this server can build bots in now (each toolchain is found and a
    trivial program built with it), and for each of the others the apt-get line that installs it."""
    chosen = [known for known in LANGUAGES if not lang or known.name in lang]
    unknown = sorted(set(lang) - {known.name for known in LANGUAGES})
    if unknown:
        known_names = ", ".join(known.name for known in LANGUAGES)
        raise typer.BadParameter(
            f"unknown language {unknown[0]!r} (known: {known_names})", param_hint="--lang"
        )
    shown = table("Languages", ("language", "kit", "protocol", "ready", "why not"), wrap=("why not",))
    missing = []
    for known in chosen:
        with console.status(f"checking {known.title}..."):
            readiness = check(known)
        if not readiness.ready:
            missing.append(known)
        shown.add_row(
            known.title, known.name, known.protocol, "yes" if readiness.ready else "no", readiness.detail
        )
    print_table(shown)
    lines = install_lines(missing)
    if lines:
        console.print("to build in another language, install its toolchain (as root):", soft_wrap=True)
        for known, line in lines:
            console.print(f"  {known.title}: {line}", soft_wrap=True, highlight=False, markup=False)
    elif missing:
        console.print("the packages are installed, yet a trivial build failed: see above")
    else:
        console.print("every language above can be built here")
    raise typer.Exit(1 if missing else 0)
