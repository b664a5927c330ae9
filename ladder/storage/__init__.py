"""The database: its tables (``models``), opening it (``db``), its schema migrations (``migrate``
and ``migrations/``) and what is kept how long (``retention``).

The bottom of the ladder: it imports only the ladder's shared values below it (``errors``), and
every other part of the ladder imports it.
"""
