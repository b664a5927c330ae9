"""Small untruths in the documentation and the help, found by a club of authors (issue 47,
finding 7): a heading written twice, a promotion example that skipped a tier, and `serve --help`
calling the website read-only, when authors upload through its console."""

from __future__ import annotations

import re
from collections import Counter

from typer.testing import CliRunner

from kingmaker.server.cli import app

from support import REPO

DOCS = sorted([*REPO.glob("docs/*.md"), REPO / "README.md", *REPO.glob("kits/*.md")])


def test_no_document_gives_one_heading_twice() -> None:
    repeated = {}
    for doc in DOCS:
        headings = Counter(line for line in doc.read_text().splitlines() if line.startswith("#"))
        twice = [heading for heading, count in headings.items() if count > 1]
        if twice:
            repeated[doc.name] = twice
    assert len(DOCS) > 10, "the documents are found"
    assert repeated == {}


def test_the_promotion_example_moves_an_entry_up_one_tier() -> None:
    text = (REPO / "docs" / "competitions.md").read_text()
    tiers = re.findall(r"--tier (\w+)=", text)
    assert tiers[:3] == ["wood", "bronze", "gold"], tiers
    for low, high in re.findall(r"promoted from (\w+) to (\w+)", text):
        assert tiers.index(high) == tiers.index(low) + 1, (low, high)


def test_serve_help_does_not_call_the_site_read_only() -> None:
    shown = CliRunner().invoke(app, ["serve", "--help"], terminal_width=200).stdout
    assert "--web" in shown and "console" in shown
    assert "read-only website" not in shown
