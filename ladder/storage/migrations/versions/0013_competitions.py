"""Competitions: a season with a deadline, entries frozen at one version, finals in stages (each
stage's leagues recorded) and a log of every decision (docs/competitions.md).

Revision ID: 0013
Revises: 0009
Create Date: 2026-11-26 06:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0013"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "competition",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", AutoString(), nullable=False),
        sa.Column("game", AutoString(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("opens_at", UTCDateTime(), nullable=False),
        sa.Column("closes_at", UTCDateTime(), nullable=False),
        sa.Column("finals", sa.JSON(), nullable=False),
        sa.Column("phase", AutoString(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=True),
        sa.Column("stage", sa.Integer(), nullable=False),
        sa.Column("winner_bot_id", sa.Integer(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.ForeignKeyConstraint(["winner_bot_id"], ["bot.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_competition_name"), ["name"], unique=True)
    op.create_table(
        "competitionentry",
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("selected_version", sa.Integer(), nullable=True),
        sa.Column("frozen_version", sa.Integer(), nullable=True),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("out_at_stage", sa.Integer(), nullable=True),
        sa.Column("entered_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.ForeignKeyConstraint(["competition_id"], ["competition.id"]),
        sa.PrimaryKeyConstraint("competition_id", "bot_id"),
    )
    op.create_table(
        "competitionstage",
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("stage", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["competition_id"], ["competition.id"]),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.PrimaryKeyConstraint("competition_id", "stage", "slot"),
        sa.UniqueConstraint("league_id"),
    )
    op.create_table(
        "competitiondecision",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("key", AutoString(), nullable=False),
        sa.Column("kind", AutoString(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=True),
        sa.Column("stage", sa.Integer(), nullable=False),
        sa.Column("reason", AutoString(), nullable=False),
        sa.Column("decided_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.ForeignKeyConstraint(["competition_id"], ["competition.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("competition_id", "key"),
    )
    with op.batch_alter_table("competitiondecision", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_competitiondecision_competition_id"), ["competition_id"], unique=False
        )


def downgrade() -> None:
    op.drop_table("competitiondecision")
    op.drop_table("competitionstage")
    op.drop_table("competitionentry")
    op.drop_table("competition")
