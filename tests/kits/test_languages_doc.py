"""docs/languages.md names the same toolchains, commands and versions as the table in the code
(kits/languages.py) and the kits' own manifests."""

from __future__ import annotations

import re

from kingmaker.kits.languages import LANGUAGES, kit_folder
from kingmaker.kits.manifest import read_manifest

from support import REPO

PAGE = (REPO / "docs" / "languages.md").read_text()


def rows(header: str) -> dict[str, list[str]]:
    """The rows of the table whose header row is ``header``, by their first cell."""
    lines = PAGE.splitlines()
    start = lines.index(header) + 2
    found = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        found[cells[0]] = cells
    return found


def test_the_toolchain_table_lists_each_language_as_the_code_and_its_manifest_do() -> None:
    table = rows("| language | `--lang` | protocol | Debian packages | build | run |")
    assert list(table) == [language.title for language in LANGUAGES]
    for language in LANGUAGES:
        manifest = read_manifest(kit_folder(language.name))
        _, name, protocol, packages, build, run = table[language.title]
        assert name == f"`{language.name}`"
        assert protocol == language.protocol == manifest.protocol
        assert re.findall(r"`([^`]+)`", packages) == list(language.debian)
        assert build == (f"`{manifest.build}`" if manifest.build else "none")
        assert run == f"`{' '.join(manifest.run)}`"


def test_the_versions_table_says_what_the_code_says() -> None:
    table = rows("| language | tested with |")
    assert {title: cells[1] for title, cells in table.items()} == {
        language.title: language.tested for language in LANGUAGES
    }
