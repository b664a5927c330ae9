"""The fixture of a person's table (``play_support``)."""

from play_support import guest_table, rated_table, table

__all__ = ["guest_table", "rated_table", "table"]
