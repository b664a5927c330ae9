"""Tiers may relegate: an entry last at its table in ``relegate_after`` of its tier's matches in a
row moves down a tier, and each entry keeps the match its stay in its tier counts from
(``tier_since_match``) (docs/competitions.md).

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.add_column(sa.Column("relegate_after", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("competitionentry", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tier_since_match", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("competitionentry", schema=None) as batch_op:
        batch_op.drop_column("tier_since_match")
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.drop_column("relegate_after")
