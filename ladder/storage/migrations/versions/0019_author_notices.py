"""Authors are told what happened to their bots: a notice row where it happens (a build failed, a
validation failed, an A/B verdict, a suspension, a competition's deadline ahead), read by the
console's feed and sent to the admin's webhook.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notice",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("kind", AutoString(), nullable=False),
        sa.Column("summary", AutoString(), nullable=False),
        sa.Column("detail", AutoString(), nullable=True),
        sa.Column("bot", AutoString(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("competition", AutoString(), nullable=True),
        sa.Column("key", AutoString(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["author_id"], ["author.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("author_id", "key"),
    )
    with op.batch_alter_table("notice", schema=None) as batch_op:
        batch_op.create_index("ix_notice_author_id_id", ["author_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_table("notice")
