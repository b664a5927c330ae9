"""A version's trial matches (its validation's and its A/B duel's) are kept for its owner to
replay: ``trialmatch`` (``ladder.matches.trial_matches``).

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28 09:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trialmatch",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("purpose", AutoString(), nullable=False),
        sa.Column("game", AutoString(), nullable=False),
        sa.Column("rules_edition", AutoString(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("actions", sa.LargeBinary(), nullable=False),
        sa.Column("digests", sa.LargeBinary(), nullable=False),
        sa.Column("timings", sa.LargeBinary(), nullable=False),
        sa.Column("played_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_trialmatch_bot_version", "trialmatch", ["bot_id", "version"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_trialmatch_bot_version", table_name="trialmatch")
    op.drop_table("trialmatch")
