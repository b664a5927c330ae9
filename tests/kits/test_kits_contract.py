"""The kits follow the contract: every game the server has is one the kits are played in, the
Rust kit's types are generated from the games' descriptors, and a contract the generator cannot
express is refused by name (so the Rust kit fails loudly rather than lag silently)."""

from __future__ import annotations

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from kits_support import OPPONENTS

from kingmaker.games.registry import game_names
from kingmaker.kits import json_types
from kingmaker.kits.json_types import UnsupportedContract, rust_types


def test_the_kits_are_played_in_every_game_the_server_has() -> None:
    """A new game must get a sample opponent here, and then every kit must decode it to pass."""
    assert sorted(OPPONENTS) == game_names()


def test_the_rust_types_have_every_game_and_every_message_of_it() -> None:
    generated = rust_types()
    for game in game_names():
        assert f"pub mod {game} {{" in generated
        assert f'"type.googleapis.com/kingmaker.{game}.v1.Observation"' in generated
        for message in json_types.game_file(game).message_types_by_name:
            assert f"pub struct {message} {{" in generated, f"{game}.{message}"


def test_enum_values_keep_their_wire_names_and_lose_only_the_enum_prefix() -> None:
    generated = rust_types()
    assert '#[serde(rename = "TILE_KIND_GOLD_MINE")]\n        GoldMine,' in generated
    assert '#[default]\n        #[serde(rename = "TILE_KIND_UNSPECIFIED")]\n        Unspecified,' in generated


def a_file(field: descriptor_pb2.FieldDescriptorProto, *extra: descriptor_pb2.DescriptorProto) -> str:
    """The Rust of one made-up message holding ``field``, as the generator writes it."""
    proto = descriptor_pb2.FileDescriptorProto(name="toy.proto", package="toy", syntax="proto3")
    proto.message_type.add(name="Observation", field=[field])
    proto.message_type.extend(extra)
    pool = descriptor_pool.DescriptorPool()
    file = pool.Add(proto)
    return "\n".join(json_types._struct(file.message_types_by_name["Observation"]))


def test_a_map_field_is_refused_by_name() -> None:
    entry = descriptor_pb2.DescriptorProto(
        name="ScoresEntry", options=descriptor_pb2.MessageOptions(map_entry=True)
    )
    entry.field.add(name="key", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING)
    entry.field.add(name="value", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32)
    proto = descriptor_pb2.FileDescriptorProto(name="toy.proto", package="toy", syntax="proto3")
    message = proto.message_type.add(name="Observation")
    message.nested_type.append(entry)
    message.field.add(
        name="scores", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
        label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED, type_name=".toy.Observation.ScoresEntry",
    )  # fmt: skip
    file = descriptor_pool.DescriptorPool().Add(proto)
    with pytest.raises(UnsupportedContract, match="maps are not supported"):
        json_types._struct(file.message_types_by_name["Observation"])


def test_sixty_four_bit_integers_are_strings_and_keywords_are_raw() -> None:
    rust = a_file(
        descriptor_pb2.FieldDescriptorProto(
            name="type", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64, json_name="type"
        )
    )
    assert "pub r#type: String," in rust


def test_a_message_field_may_be_absent() -> None:
    rust = a_file(
        descriptor_pb2.FieldDescriptorProto(
            name="drawn_tile", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
            type_name=".toy.Tile", json_name="drawnTile",
        ),
        descriptor_pb2.DescriptorProto(name="Tile"),
    )  # fmt: skip
    assert '#[serde(rename = "drawnTile", skip_serializing_if = "Option::is_none")]' in rust
    assert "pub drawn_tile: Option<Tile>," in rust
