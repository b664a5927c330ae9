"""A bot remembers when its faults were last forgiven (``bot reinstate``, or a new version that
lifted its suspension): the fault window counts only matches finished after that, so one more
fault does not suspend a bot that was just reinstated.

Revision ID: 0014
Revises: 0009
Create Date: 2026-11-26 06:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import UTCDateTime

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.add_column(sa.Column("faults_forgiven_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.drop_column("faults_forgiven_at")
