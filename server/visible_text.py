"""Text a bot or an author wrote, shown with its control characters made visible: printed raw, a
bot's stderr could clear the reader's screen, retitle their terminal, plant links, hide lines
(a carriage return, a cursor move) or reorder what they read (Unicode's bidirectional overrides)
(issue 43). Each becomes its escape in hexadecimal (``\\x1b``, ``\\x0d``, ``\\u202e``);
newlines and tabs stay, and a CRLF reads as a newline. The command line's consoles and the
website's templates pass everything they show through ``visible``."""

from __future__ import annotations

import re
from typing import Any

_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 controls but tab and newline, DEL, C1 controls (CSI is \x9b)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional marks, embeddings, overrides, isolates
    "\u2028\u2029]"  # line and paragraph separators
)


def visible(text: str) -> str:
    """``text`` with every control character written as its escape."""
    if _HIDDEN.search(text) is None:
        return text
    return _HIDDEN.sub(_escape, text.replace("\r\n", "\n"))


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible_values(data: Any) -> Any:
    """``data`` (JSON-like: dicts, lists, strings, numbers) with every string made ``visible``:
    for the JSON a page's script shows as text."""
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, dict):
        return {key: visible_values(value) for key, value in data.items()}
    if isinstance(data, list):
        return [visible_values(value) for value in data]
    return data
