"""The command line's console: rich's, but whatever it prints has its control characters made
visible (``visible_text``), so a bot's stderr, a build log or a name cannot move the cursor,
clear the screen or plant links in the reader's terminal (issue 43). Rich's own styling is kept:
it is added after the text, from styles, and never passes through here."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from kingmaker.server.visible_text import visible


class VisibleConsole(Console):
    def render_str(self, text: str, **options: Any) -> Text:
        """Strings printed or put in tables: made visible before rich reads them (rich itself
        drops a few controls, BEL among them, and keeps ESC)."""
        return super().render_str(visible(text), **options)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        """Every other renderable (a ``Text`` made elsewhere): its text segments made visible; a
        control segment is rich's own (cursor moves of a live display) and stays."""
        for segment in super().render(renderable, options):
            if segment.control is None and segment.text:
                yield Segment(visible(segment.text), segment.style)
            else:
                yield segment
