"""A seat's log keeps what its bot printed on stderr at each step (``ladder.step_output``).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 07:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seatlog", schema=None) as batch_op:
        batch_op.add_column(sa.Column("steps", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seatlog", schema=None) as batch_op:
        batch_op.drop_column("steps")
