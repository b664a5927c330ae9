"""A version remembers whether its author asked for an A/B duel before it replaces the active one
(``submit --ab``).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("botversion", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ab", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("botversion", schema=None) as batch_op:
        batch_op.drop_column("ab")
