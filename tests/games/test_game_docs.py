"""``docs/games/GAME.md`` is the reference an author of another language reads: every message of the
game's proto (observation and actions), every field of each and every enum value is named there
in backticks, so a field added to the proto without a word in the doc fails here."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from google.protobuf.descriptor import Descriptor

from kingmaker.games.registry import game_names

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"


def named_in(doc: str) -> set[str]:
    """Every identifier inside a backtick span of the doc (`Influence.plus_two` names both)."""
    spans = re.findall(r"`([^`]+)`", doc)
    return {word for span in spans for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}


def proto_names(message: Descriptor) -> list[str]:
    """The message's name, its fields' and, recursively, its nested messages' (maps aside)."""
    names = [message.name, *(f"{message.name}.{field.name}" for field in message.fields)]
    for nested in message.nested_types:
        if not nested.GetOptions().map_entry:
            names += proto_names(nested)
    return names


@pytest.mark.parametrize("game", game_names())
def test_every_proto_field_is_in_the_games_doc(game: str) -> None:
    module = importlib.import_module(f"kingmaker.{game}.v1.{game}_pb2")
    doc = DOCS / f"{game}.md"
    assert doc.is_file(), f"docs/games/{game}.md is missing"
    named = named_in(doc.read_text())
    messages = module.DESCRIPTOR.message_types_by_name.values()
    missing = [
        name for message in messages for name in proto_names(message) if name.rpartition(".")[2] not in named
    ]
    # An enum value is named as the proto spells it or without its type's prefix (GOOD_GOLD or GOLD).
    enums = module.DESCRIPTOR.enum_types_by_name.values()
    missing += [
        value.name
        for enum in enums
        for value in enum.values
        if not value.name.endswith("_UNSPECIFIED")
        and value.name not in named
        and value.name.removeprefix(_prefix(enum.name)) not in named
    ]
    assert not missing, f"docs/games/{game}.md does not name: {', '.join(missing)}"


def _prefix(enum_name: str) -> str:
    """Proto style prefixes an enum's values with its name in capitals: EnemyKind -> ENEMY_KIND_."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum_name).upper() + "_"


def test_the_check_sees_a_missing_field() -> None:
    """A doc that names everything but one field fails: the check is not vacuous."""
    module = importlib.import_module("kingmaker.kingsburg.v1.kingsburg_pb2")
    influence = module.DESCRIPTOR.message_types_by_name["Influence"]
    doc = "`Influence` takes `advisor`, `coloured`, `white`, `plus_two` and `market`."
    named = named_in(doc)
    assert [name for name in proto_names(influence) if name.rpartition(".")[2] not in named] == [
        "Influence.envoy"
    ]


# A path into the engine's source, or its docstrings: an author of another language must find
# every rule on the page itself (issue 46).
SOURCE_POINTER = re.compile(
    r"\bgames/[a-z_]+/|docstring|\b(?:pieces|data|gifts|actions|plays|cards)\.(?:py|json)\b"
)


@pytest.mark.parametrize("game", game_names())
def test_the_games_doc_points_at_no_source(game: str) -> None:
    doc = (DOCS / f"{game}.md").read_text()
    pointers = [line for line in doc.splitlines() if SOURCE_POINTER.search(line)]
    assert not pointers, f"docs/games/{game}.md points at source instead of saying it: {pointers}"


@pytest.mark.parametrize("game", game_names())
def test_the_games_doc_holds_every_decision_the_engine_took(game: str) -> None:
    """The engine's own list of decisions where the rulebook is silent is the page's, word for word."""
    notes = importlib.import_module(f"kingmaker.games.{game}").__doc__ or ""
    listed = notes[notes.index("Decisions ") :].splitlines()[1:]
    decisions = "\n".join(line for line in listed if not re.fullmatch(r"-{5,}", line)).strip()
    doc = (DOCS / f"{game}.md").read_text()
    section = doc.split("## Where the rulebook is silent", 1)[1].split("\n## ", 1)[0]
    assert decisions.replace("``", "`") in section, (
        f"docs/games/{game}.md's 'Where the rulebook is silent' differs from games/{game}/__init__.py"
    )
