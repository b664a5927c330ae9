"""Notices to authors: a row written in the transaction where the news happened (a build failed,
a validation failed, an A/B verdict, a suspension, a competition's deadline ahead), so none is
lost nor told twice; read back by the author's feed (newest first, a page at a time) and, in
order, by the admin's webhook (``server.notify``). A bot of the admin's tells nobody."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Author, Bot, Notice, NoticeKind


@dataclass(frozen=True)
class NoticeRecord:
    id: int
    author: str
    kind: str
    summary: str
    detail: str
    bot: str
    version: int
    competition: str
    created_at: datetime


def notify_in(
    session: Session,
    author_id: int | None,
    kind: str,
    summary: str,
    *,
    detail: str | None = None,
    bot: str | None = None,
    version: int | None = None,
    competition: str | None = None,
    key: str | None = None,
) -> bool:
    """Write a notice inside the caller's transaction; False (nothing written) for the admin's
    bots and for a ``key`` this author was told already."""
    assert kind in NoticeKind.ALL, kind
    if author_id is None:
        return False
    if key is not None and _told(session, author_id, key):
        return False
    session.add(
        Notice(
            author_id=author_id,
            kind=kind,
            summary=summary,
            detail=detail,
            bot=bot,
            version=version,
            competition=competition,
            key=key,
        )
    )
    return True


def notify_about_bot(session: Session, bot: Bot, kind: str, summary: str, detail: str | None = None,
                     version: int | None = None) -> bool:  # fmt: skip
    """``notify_in`` for the owner of ``bot``."""
    return notify_in(session, bot.author_id, kind, summary, detail=detail, bot=bot.name, version=version)


def author_notices(
    db: Database, author_id: int | None, limit: int, before: int | None = None
) -> list[NoticeRecord]:
    """An author's notices (every author's for None: the admin), newest first, older than
    ``before`` (the page before's last id), at most ``limit``; on the ``(author_id, id)`` index."""
    query = select(Notice, Author.name).join(Author, col(Author.id) == col(Notice.author_id))
    if author_id is not None:
        query = query.where(Notice.author_id == author_id)
    if before is not None:
        query = query.where(col(Notice.id) < before)
    with db.read() as session:
        rows = session.exec(query.order_by(col(Notice.id).desc()).limit(limit)).all()
        return [_record(notice, author) for notice, author in rows]


def notices_after(db: Database, after: int, limit: int) -> list[NoticeRecord]:
    """Every author's notices written after the notice ``after``, oldest first (the webhook's)."""
    query = (
        select(Notice, Author.name)
        .join(Author, col(Author.id) == col(Notice.author_id))
        .where(col(Notice.id) > after)
        .order_by(col(Notice.id))
        .limit(limit)
    )
    with db.read() as session:
        return [_record(notice, author) for notice, author in session.exec(query).all()]


def newest_notice(db: Database) -> int:
    """The id of the newest notice, 0 for none."""
    with db.read() as session:
        return int(session.exec(select(func.max(Notice.id))).one() or 0)


def _told(session: Session, author_id: int, key: str) -> bool:
    found = session.exec(select(Notice.id).where(Notice.author_id == author_id, Notice.key == key)).first()
    return found is not None


def _record(notice: Notice, author: str) -> NoticeRecord:
    assert notice.id is not None
    return NoticeRecord(
        id=notice.id,
        author=author,
        kind=notice.kind,
        summary=notice.summary,
        detail=notice.detail or "",
        bot=notice.bot or "",
        version=notice.version or 0,
        competition=notice.competition or "",
        created_at=notice.created_at,
    )
