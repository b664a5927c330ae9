"""The ``notice`` table: news for an author, written where it happens (``ladder.bots.notices``);
apart from ``models`` (which re-exports it) only to keep each file short."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel


class NoticeKind:
    """What a notice tells an author (``ladder.bots.notices``)."""

    BUILD_FAILED = "build_failed"
    VALIDATION_FAILED = "validation_failed"
    AB_VERDICT = "ab_verdict"
    SUSPENDED = "suspended"
    DEADLINE_AHEAD = "deadline_ahead"
    ALL = (BUILD_FAILED, VALIDATION_FAILED, AB_VERDICT, SUSPENDED, DEADLINE_AHEAD)


class Notice(SQLModel, table=True):
    """Something an author would want to know about their bot, written in the transaction where
    it happened: their console's feed, and the admin's webhook (``services.notice_webhook``).
    ``key`` makes a notice sent once (a competition's deadline), whatever looks at the clock."""

    __table_args__ = (
        UniqueConstraint("author_id", "key"),
        Index("ix_notice_author_id_id", "author_id", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    author_id: int = Field(foreign_key="author.id")
    kind: str
    """A ``NoticeKind`` value."""
    summary: str
    """A sentence anyone may read: what the bot's public page would say."""
    detail: str | None = None
    """What only the author may read (why the build failed, the A/B figures); never sent out."""
    bot: str | None = None
    version: int | None = None
    competition: str | None = None
    key: str | None = None
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
