"""Authors own bots; every build or command of a bot is a version, and matches record which one
played; each seat's stderr and strikes are kept for the bot's owner; each game ladder says what a
new version's rating starts from.

Every managed bot registered before this gets version 1 (its command), active: it is what has
been playing. Matches played before keep no version (NULL).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "author",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", AutoString(), nullable=False),
        sa.Column("token_hash", AutoString(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("bot_quota", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("token_rotated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("author", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_author_name"), ["name"], unique=True)
        batch_op.create_index(batch_op.f("ix_author_token_hash"), ["token_hash"], unique=True)

    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.add_column(sa.Column("author_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("active_version", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_bot_author_id"), ["author_id"], unique=False)
        batch_op.create_foreign_key("fk_bot_author_id_author", "author", ["author_id"], ["id"])

    op.create_table(
        "botversion",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", AutoString(), nullable=False),
        sa.Column("status_reason", AutoString(), nullable=True),
        sa.Column("source", AutoString(), nullable=False),
        sa.Column("archive_hash", AutoString(), nullable=True),
        sa.Column("build_hash", AutoString(), nullable=True),
        sa.Column("command", sa.JSON(), nullable=True),
        sa.Column("working_dir", AutoString(), nullable=True),
        sa.Column("protocol", AutoString(), nullable=False),
        sa.Column("manifest", sa.JSON(), nullable=False),
        sa.Column("build_log", AutoString(), nullable=True),
        sa.Column("validation", sa.JSON(), nullable=False),
        sa.Column("submitted_by", sa.Integer(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("built_at", UTCDateTime(), nullable=True),
        sa.Column("activated_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.ForeignKeyConstraint(["submitted_by"], ["author.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("bot_id", "number"),
    )
    with op.batch_alter_table("botversion", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_botversion_bot_id"), ["bot_id"], unique=False)

    op.create_table(
        "ladderpolicy",
        sa.Column("game", AutoString(), nullable=False),
        sa.Column("new_version", AutoString(), nullable=False),
        sa.PrimaryKeyConstraint("game"),
    )

    op.create_table(
        "seatlog",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("stderr", AutoString(), nullable=False),
        sa.Column("stderr_bytes", sa.Integer(), nullable=False),
        sa.Column("strikes", sa.JSON(), nullable=False),
        sa.Column("exit", AutoString(), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    with op.batch_alter_table("seatlog", schema=None) as batch_op:
        batch_op.create_index("ix_seatlog_bot_match", ["bot_id", "match_id"], unique=False)

    with op.batch_alter_table("matchseat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("version", sa.Integer(), nullable=True))
    with op.batch_alter_table("ratinghistory", schema=None) as batch_op:
        batch_op.add_column(sa.Column("version", sa.Integer(), nullable=True))

    # What has been playing is version 1 of each managed bot.
    connection = op.get_bind()
    bot = sa.table(
        "bot",
        sa.column("id", sa.Integer()),
        sa.column("command", sa.JSON()),
        sa.column("working_dir", sa.String()),
        sa.column("created_at", UTCDateTime()),
        sa.column("active_version", sa.Integer()),
    )
    version = sa.table(
        "botversion",
        sa.column("bot_id", sa.Integer()),
        sa.column("number", sa.Integer()),
        sa.column("status", sa.String()),
        sa.column("source", sa.String()),
        sa.column("command", sa.JSON()),
        sa.column("working_dir", sa.String()),
        sa.column("protocol", sa.String()),
        sa.column("manifest", sa.JSON()),
        sa.column("validation", sa.JSON()),
        sa.column("created_at", UTCDateTime()),
        sa.column("activated_at", UTCDateTime()),
    )
    managed = connection.execute(
        sa.select(bot.c.id, bot.c.command, bot.c.working_dir, bot.c.created_at)
    ).fetchall()
    managed = [row for row in managed if row.command]
    if managed:
        connection.execute(
            version.insert(),
            [
                {
                    "bot_id": row.id,
                    "number": 1,
                    "status": "active",
                    "source": "command",
                    "command": row.command,
                    "working_dir": row.working_dir,
                    "protocol": "grpc",
                    "manifest": {},
                    "validation": [],
                    "created_at": row.created_at,
                    "activated_at": row.created_at,
                }
                for row in managed
            ],
        )
        connection.execute(
            bot.update().where(bot.c.id.in_([row.id for row in managed])).values(active_version=1)
        )


def downgrade() -> None:
    with op.batch_alter_table("ratinghistory", schema=None) as batch_op:
        batch_op.drop_column("version")
    with op.batch_alter_table("matchseat", schema=None) as batch_op:
        batch_op.drop_column("version")
    with op.batch_alter_table("seatlog", schema=None) as batch_op:
        batch_op.drop_index("ix_seatlog_bot_match")
    op.drop_table("seatlog")
    op.drop_table("ladderpolicy")
    with op.batch_alter_table("botversion", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_botversion_bot_id"))
    op.drop_table("botversion")
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.drop_constraint("fk_bot_author_id_author", type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_bot_author_id"))
        batch_op.drop_column("active_version")
        batch_op.drop_column("author_id")
    with op.batch_alter_table("author", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_author_token_hash"))
        batch_op.drop_index(batch_op.f("ix_author_name"))
    op.drop_table("author")
