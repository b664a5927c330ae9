"""Matches in which no seat played are kept unrated; a league says why it ended or stopped.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 15:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.true()))
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.add_column(sa.Column("status_reason", AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.drop_column("status_reason")
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_column("rated")
