"""Matches with people may be rated apart from the ladder (``serve --rate-people``): the
``peoplerating`` rows and the match's ``rated_with_people`` flag (``ratings.people_ratings``).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 10:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A literal default, not sa.false(): an expression makes alembic rebuild the table on SQLite,
    # and dropping the old ``match`` fails its seats' foreign keys once it holds matches.
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rated_with_people", sa.Boolean(), nullable=False, server_default="0"))
    op.create_table(
        "peoplerating",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("game", AutoString(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("conservative", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("rank_sum", sa.Integer(), nullable=False),
        sa.Column("faults", sa.Integer(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("bot_id", "game"),
    )
    op.create_index(
        "ix_peoplerating_game_conservative", "peoplerating", ["game", "conservative"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_peoplerating_game_conservative", table_name="peoplerating")
    op.drop_table("peoplerating")
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_column("rated_with_people")
