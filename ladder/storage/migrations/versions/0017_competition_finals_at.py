"""Competitions start their finals by themselves: each may state when (``finals_at``; none: at
its deadline) (docs/competitions.md).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 06:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import UTCDateTime

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.add_column(sa.Column("finals_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.drop_column("finals_at")
