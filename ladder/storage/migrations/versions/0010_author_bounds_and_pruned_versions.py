"""Bounds per author (builds at once, submissions per hour, bytes stored) and retention: a
version keeps its archive's and build's sizes, and when its files were pruned.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 06:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import UTCDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

GiB = 1024 * 1024 * 1024


def upgrade() -> None:
    with op.batch_alter_table("author", schema=None) as batch_op:
        batch_op.add_column(sa.Column("builds_at_once", sa.Integer(), nullable=False, server_default="1"))
        batch_op.add_column(
            sa.Column("submissions_per_hour", sa.Integer(), nullable=False, server_default="20")
        )
        batch_op.add_column(
            sa.Column("stored_bytes", sa.BigInteger(), nullable=False, server_default=str(GiB))
        )
    with op.batch_alter_table("botversion", schema=None) as batch_op:
        batch_op.add_column(sa.Column("archive_bytes", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("build_bytes", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("pruned_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("botversion", schema=None) as batch_op:
        batch_op.drop_column("pruned_at")
        batch_op.drop_column("build_bytes")
        batch_op.drop_column("archive_bytes")
    with op.batch_alter_table("author", schema=None) as batch_op:
        batch_op.drop_column("stored_bytes")
        batch_op.drop_column("submissions_per_hour")
        batch_op.drop_column("builds_at_once")
