"""The database: its tables (``models``), opening it with its connection settings (``db``), the
schema's migrations run in code (``migrate`` and the alembic scripts in ``migrations/``) and what
is kept how long (``retention``).

May import: the ladder's shared values (``errors``) and nothing else of the ladder: every other
part imports it.
"""
