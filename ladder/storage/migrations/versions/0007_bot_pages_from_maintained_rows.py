"""Bot pages from maintained rows and indexed reads: each bot's faults by reason (``botfault``,
filled from the finished matches already stored), its seats by end reason, its rating history by
match count; and matches by game and seed, to tell whether a match's twins are over.

Revision ID: 0007
Revises: 0005
Create Date: 2026-11-25 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString

revision = "0007"
down_revision = "0005"
branch_labels = None
depends_on = None

# The EndReason values that are a bot's fault (kingmaker.ladder.outcomes), as of this revision.
FAULTS = ("timeout", "illegal_action", "malformed_reply", "protocol_error", "crashed", "disconnected",
          "never_connected")  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "botfault",
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("reason", AutoString(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("last_match_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.ForeignKeyConstraint(["last_match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("bot_id", "reason"),
    )
    seat = sa.table("matchseat", sa.column("bot_id"), sa.column("end_reason"), sa.column("match_id"))
    match = sa.table("match", sa.column("id"), sa.column("status"))
    counted = (
        sa.select(seat.c.bot_id, seat.c.end_reason, sa.func.count(), sa.func.max(seat.c.match_id))
        .select_from(seat.join(match, match.c.id == seat.c.match_id))
        .where(match.c.status == "finished", seat.c.end_reason.in_(FAULTS))
        .group_by(seat.c.bot_id, seat.c.end_reason)
    )
    faults = sa.table(
        "botfault", sa.column("bot_id"), sa.column("reason"), sa.column("count"), sa.column("last_match_id")
    )
    op.execute(faults.insert().from_select(["bot_id", "reason", "count", "last_match_id"], counted))
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.create_index("ix_match_game_seed", ["game", "seed"], unique=False)
    with op.batch_alter_table("matchseat", schema=None) as batch_op:
        batch_op.create_index(
            "ix_matchseat_bot_reason_match", ["bot_id", "end_reason", "match_id"], unique=False
        )
    with op.batch_alter_table("ratinghistory", schema=None) as batch_op:
        batch_op.drop_index("ix_ratinghistory_game_bot")
        batch_op.create_index(
            "ix_ratinghistory_game_bot_matches", ["game", "bot_id", "matches"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("ratinghistory", schema=None) as batch_op:
        batch_op.drop_index("ix_ratinghistory_game_bot_matches")
        batch_op.create_index("ix_ratinghistory_game_bot", ["game", "bot_id"], unique=False)
    with op.batch_alter_table("matchseat", schema=None) as batch_op:
        batch_op.drop_index("ix_matchseat_bot_reason_match")
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_index("ix_match_game_seed")
    op.drop_table("botfault")
