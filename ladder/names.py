"""The names people give bots, leagues and authors."""

from __future__ import annotations

import re

from kingmaker.ladder.errors import InvalidRequestError

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_name(kind: str, name: str) -> None:
    """Bot, league and author names: 1 to 64 ASCII letters, digits, '_', '.' or '-' (no spaces, no
    control or direction-changing characters), so every name is safe to show and to type."""
    if not NAME_PATTERN.fullmatch(name):
        shown = repr(name) if len(name) <= 70 else f"{name[:60]!r}... ({len(name)} characters)"
        raise InvalidRequestError(
            f"bad {kind} name {shown}: use 1 to 64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
