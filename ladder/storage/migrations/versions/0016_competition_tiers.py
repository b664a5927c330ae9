"""Competitions may have tiers guarded by boss bots: the competition keeps its tiers and the
matches before a promotion, each entry its tier (docs/competitions.md).

Revision ID: 0016
Revises: 0014
Create Date: 2026-11-26 07:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tiers", sa.JSON(), nullable=False, server_default="[]"))
        batch_op.add_column(sa.Column("promote_after", sa.Integer(), nullable=False, server_default="10"))
    with op.batch_alter_table("competitionentry", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tier", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("competitionentry", schema=None) as batch_op:
        batch_op.drop_column("tier")
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.drop_column("promote_after")
        batch_op.drop_column("tiers")
