"""A game value as indented text, one field a line: the ``ansi`` rendering of a board."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any


def value_text(value: Any, indent: str = "") -> str:
    return "\n".join(_lines(value, indent))


def _lines(value: Any, indent: str) -> list[str]:
    lines: list[str] = []
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if _is_flat(item):
            lines.append(f"{indent}{field.name}: {_flat(item)}")
        else:
            lines.append(f"{indent}{field.name}:")
            for entry in item if isinstance(item, tuple) else (item,):
                if _is_flat(entry):
                    lines.append(f"{indent}  - {_flat(entry)}")
                else:
                    nested = _lines(entry, indent + "    ")
                    lines.append(f"{indent}  - {nested[0].lstrip()}")
                    lines.extend(nested[1:])
    return lines


def _is_flat(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_is_flat(item) and not isinstance(item, tuple) for item in value) and not any(
            dataclasses.is_dataclass(item) and len(dataclasses.fields(item)) > 3 for item in value
        )
    if dataclasses.is_dataclass(value):
        return len(dataclasses.fields(value)) <= 3 and all(
            not isinstance(getattr(value, f.name), tuple) for f in dataclasses.fields(value)
        )
    return True


def _flat(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_flat(item) for item in value) + "]"
    if dataclasses.is_dataclass(value):
        fields = ", ".join(f"{f.name}={_flat(getattr(value, f.name))}" for f in dataclasses.fields(value))
        return f"{type(value).__name__}({fields})"
    if isinstance(value, enum.Enum):
        return value.name
    if value is None:
        return "-"
    return str(value)
