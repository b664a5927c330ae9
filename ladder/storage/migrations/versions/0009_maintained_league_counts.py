"""A league keeps its matchmaking facts in rows (per bot: matches planned, rating, away, left;
per pair: meetings planned and played), so a claim reads a few indexed rows instead of counting
every seat; existing leagues get theirs counted here, once.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import UTCDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3


def upgrade() -> None:
    with op.batch_alter_table("leaguebot", schema=None) as batch_op:
        batch_op.add_column(sa.Column("planned", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("mu", sa.Float(), nullable=False, server_default=str(DEFAULT_MU)))
        batch_op.add_column(sa.Column("sigma", sa.Float(), nullable=False, server_default=str(DEFAULT_SIGMA)))
        batch_op.add_column(sa.Column("away", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("left_at", UTCDateTime(), nullable=True))
        batch_op.create_index("ix_leaguebot_league_planned", ["league_id", "away", "planned", "bot_id"])
        batch_op.create_index("ix_leaguebot_league_mu", ["league_id", "away", "mu", "bot_id"])
        batch_op.create_index("ix_leaguebot_bot", ["bot_id"])
    op.create_table(
        "leaguepair",
        sa.Column("league_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("other_id", sa.Integer(), nullable=False),
        sa.Column("planned", sa.Integer(), nullable=False),
        sa.Column("last_group", sa.Integer(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.ForeignKeyConstraint(["league_id"], ["league.id"]),
        sa.ForeignKeyConstraint(["other_id"], ["bot.id"]),
        sa.PrimaryKeyConstraint("league_id", "bot_id", "other_id"),
    )
    _count_existing_leagues()


def _count_existing_leagues() -> None:
    """What the league store would have maintained, counted from the seats: matches planned are
    the league's rows that are not replays of void ones; meetings played, its rated ones."""
    op.execute(
        """
        UPDATE leaguebot SET planned = (
            SELECT COUNT(*) FROM matchseat JOIN match ON match.id = matchseat.match_id
            WHERE match.league_id = leaguebot.league_id AND matchseat.bot_id = leaguebot.bot_id
              AND match.replay_of IS NULL
        )
        """
    )
    rating = """
        (SELECT rating.{column} FROM rating JOIN league ON league.game = rating.game
         WHERE league.id = leaguebot.league_id AND rating.bot_id = leaguebot.bot_id)
    """
    op.execute(
        f"UPDATE leaguebot SET mu = COALESCE({rating.format(column='mu')}, {DEFAULT_MU}),"
        f" sigma = COALESCE({rating.format(column='sigma')}, {DEFAULT_SIGMA})"
    )
    op.execute(
        """
        INSERT INTO leaguepair (league_id, bot_id, other_id, planned, last_group, played)
        SELECT match.league_id, mine.bot_id, theirs.bot_id,
               SUM(CASE WHEN match.replay_of IS NULL THEN 1 ELSE 0 END),
               MAX(COALESCE(match.duplicate_group, match.ordinal)),
               SUM(CASE WHEN match.status = 'finished' AND match.rated THEN 1 ELSE 0 END)
        FROM matchseat AS mine
        JOIN matchseat AS theirs ON theirs.match_id = mine.match_id AND theirs.bot_id != mine.bot_id
        JOIN match ON match.id = mine.match_id
        WHERE match.league_id IS NOT NULL
        GROUP BY match.league_id, mine.bot_id, theirs.bot_id
        """
    )


def downgrade() -> None:
    op.drop_table("leaguepair")
    with op.batch_alter_table("leaguebot", schema=None) as batch_op:
        batch_op.drop_index("ix_leaguebot_bot")
        batch_op.drop_index("ix_leaguebot_league_mu")
        batch_op.drop_index("ix_leaguebot_league_planned")
        batch_op.drop_column("left_at")
        batch_op.drop_column("away")
        batch_op.drop_column("sigma")
        batch_op.drop_column("mu")
        batch_op.drop_column("planned")
