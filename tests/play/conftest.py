"""The fixture of a person's table (``play_support``)."""

from play_support import table

__all__ = ["table"]
