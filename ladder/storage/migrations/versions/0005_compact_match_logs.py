"""Match logs are packed (``kingmaker.ladder.matches.compact_logs``): a Kingdoms log takes about 1 kB
instead of 15 kB. Every stored log is converted in place, a thousand rows at a time.

The observation digests are shortened to what ``replay --verify`` compares (their first 4 bytes),
so a downgrade gives back the actions and timings exactly and the digests shortened. The space the
old logs took is free for new rows at once; to give it back to the file system, run ``VACUUM``
(SQLite) or ``VACUUM FULL matchlog`` (PostgreSQL) once the server is stopped.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

from kingmaker.ladder.matches import compact_logs

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = ("actions", "digests", "timings")
BATCH = 1000
"""Rows converted per round trip: a million-match database is never read into memory at once."""


def upgrade() -> None:
    _convert(sa.JSON(), sa.LargeBinary(), _pack)


def downgrade() -> None:
    _convert(sa.LargeBinary(), sa.JSON(), _unpack)


def _pack(game: str, values: dict[str, Any]) -> dict[str, Any]:
    return {
        "actions": compact_logs.pack_actions(game, values["actions"]),
        "digests": compact_logs.pack_digests(values["digests"]),
        "timings": compact_logs.pack_timings(values["timings"]),
    }


def _unpack(game: str, values: dict[str, Any]) -> dict[str, Any]:
    return {
        "actions": compact_logs.unpack_actions(game, values["actions"]),
        "digests": compact_logs.unpack_digests(values["digests"]),
        "timings": compact_logs.unpack_timings(values["timings"]),
    }


def _convert(
    old_type: sa.types.TypeEngine[Any],
    new_type: sa.types.TypeEngine[Any],
    convert: Callable[[str, dict[str, Any]], dict[str, Any]],
) -> None:
    """Give the three log columns ``new_type``, each row's values converted by ``convert``: new
    columns beside the old ones, filled, then put in their place."""
    with op.batch_alter_table("matchlog") as batch_op:
        for name in COLUMNS:
            batch_op.add_column(sa.Column(f"new_{name}", new_type, nullable=True))
    table = sa.table(
        "matchlog",
        sa.column("match_id", sa.Integer()),
        sa.column("game", sa.String()),
        *(sa.column(name, old_type) for name in COLUMNS),
        *(sa.column(f"new_{name}", new_type) for name in COLUMNS),
    )
    connection = op.get_bind()
    update = (
        table.update()
        .where(table.c.match_id == sa.bindparam("row_id"))
        .values({f"new_{name}": sa.bindparam(f"value_{name}") for name in COLUMNS})
    )
    last = -1
    while True:
        rows = connection.execute(
            sa.select(table.c.match_id, table.c.game, *(table.c[name] for name in COLUMNS))
            .where(table.c.match_id > last)
            .order_by(table.c.match_id)
            .limit(BATCH)
        ).all()
        if not rows:
            break
        changes = []
        for row in rows:
            converted = convert(row.game, {name: row._mapping[name] for name in COLUMNS})
            changes.append({"row_id": row.match_id, **{f"value_{k}": v for k, v in converted.items()}})
        connection.execute(update, changes)
        last = rows[-1].match_id
    with op.batch_alter_table("matchlog") as batch_op:
        for name in COLUMNS:
            batch_op.drop_column(name)
    with op.batch_alter_table("matchlog") as batch_op:
        for name in COLUMNS:
            batch_op.alter_column(f"new_{name}", new_column_name=name, existing_type=new_type, nullable=False)
