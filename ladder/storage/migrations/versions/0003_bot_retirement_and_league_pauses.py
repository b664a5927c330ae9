"""Bots can be removed (retired, kept for their history); leagues can be paused and remember the
concurrency they were run with.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 15:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import UTCDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.add_column(sa.Column("retired_at", UTCDateTime(), nullable=True))
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.add_column(sa.Column("paused", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("concurrency", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.drop_column("concurrency")
        batch_op.drop_column("paused")
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.drop_column("retired_at")
