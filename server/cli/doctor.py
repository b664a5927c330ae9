"""``kingmaker doctor``: which languages this machine can build bots in, and what to install."""

from __future__ import annotations

import typer

from kingmaker.kits.languages import LANGUAGES, check, install_lines
from kingmaker.server.building.toolchain_preparation import (
    NOT_PREPARED,
    WHEN_NOT_PREPARED,
    cache_languages,
    cache_states,
)
from kingmaker.server.cli.common import console
from kingmaker.server.cli.output import print_table, table
from kingmaker.server.locations import home_directory


def doctor(
    lang: list[str] = typer.Option([], "--lang", "-l", help="Check only this language (repeatable)."),
) -> None:
    """Say which languages this server can build bots in now (each toolchain is found and a
    trivial program built with it), and for each of the others the apt-get line that installs it.

    The table also says whether each language's toolchain cache (docs/submissions.md) is ready in
    this server home; `kingmaker serve --prepare-toolchains` prepares them ahead of the first build."""
    chosen = [known for known in LANGUAGES if not lang or known.name in lang]
    unknown = sorted(set(lang) - {known.name for known in LANGUAGES})
    if unknown:
        known_names = ", ".join(known.name for known in LANGUAGES)
        raise typer.BadParameter(
            f"unknown language {unknown[0]!r} (known: {known_names})", param_hint="--lang"
        )
    columns = ("language", "kit", "protocol", "ready", "why not", "toolchain cache")
    shown = table("Languages", columns, wrap=("why not", "toolchain cache"))
    caches = _cache_words([known.name for known in chosen])
    missing = []
    for known in chosen:
        with console.status(f"checking {known.title}..."):
            readiness = check(known)
        if not readiness.ready:
            missing.append(known)
        shown.add_row(
            known.title,
            known.name,
            known.protocol,
            "yes" if readiness.ready else "no",
            readiness.detail,
            caches.get(known.name, "-"),
        )
    print_table(shown)
    if NOT_PREPARED in caches.values():
        console.print(WHEN_NOT_PREPARED, soft_wrap=True, highlight=False, markup=False)
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


def _cache_words(languages: list[str]) -> dict[str, str]:
    """The toolchain cache of each of ``languages`` that has one, in this server home
    (``KINGMAKER_HOME``): ready, or why not (``building.toolchain_preparation``)."""
    cached = [language for language in languages if language in cache_languages()]
    return {state.language: state.words for state in cache_states(home_directory() / "builds", cached)}
