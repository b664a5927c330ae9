"""Authors: the people who own bots. Registered by the admin, authenticated by a token.

An author's token is shown once (``add_author``, ``rotate_author_token``) and stored only as a
hash, like a bot's (``tokens.py``). A disabled author's token is refused; their bots stay and go
on playing (disable the bots themselves to stop that). The quota bounds how many bots an author
may own at once; retired bots do not count.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from kingmaker.ladder.bots.author_bounds import check_bounds, stored_bytes_of
from kingmaker.ladder.bots.tokens import hash_token, new_token, token_matches
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.names import check_name
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Author, Bot, utc_now

MAX_BOT_QUOTA = 1000
DEFAULT_BOT_QUOTA = 5


@dataclass(frozen=True)
class AuthorInfo:
    id: int
    name: str
    enabled: bool
    bot_quota: int
    bots: int
    """Bots the author owns now (retired ones not counted)."""
    created_at: datetime
    builds_at_once: int = 1
    submissions_per_hour: int = 20
    stored_bytes: int = 0
    """The bound on bytes kept (``author_bounds``)."""
    stored: int = 0
    """Bytes the author's versions keep now."""


def add_author(db: Database, name: str, bot_quota: int = DEFAULT_BOT_QUOTA) -> tuple[AuthorInfo, str]:
    """Register an author; returns them and their token (shown this once)."""
    check_name("author", name)
    _check_quota(bot_quota)
    token = new_token()
    try:
        with db.transaction() as session:
            if session.exec(select(Author).where(Author.name == name)).first() is not None:
                raise ConflictError(f"an author named {name!r} already exists")
            author = Author(name=name, token_hash=hash_token(token), bot_quota=bot_quota)
            session.add(author)
            session.flush()
            info = _info(session, author)
    except IntegrityError:
        raise ConflictError(f"an author named {name!r} already exists") from None
    return info, token


def authenticate_author(db: Database, token: str) -> AuthorInfo | None:
    """The enabled author who holds ``token``, or None."""
    with db.read() as session:
        author = session.exec(select(Author).where(Author.token_hash == hash_token(token))).first()
        if author is None or not token_matches(token, author.token_hash) or not author.enabled:
            return None
        return _info(session, author)


def get_author(db: Database, name: str) -> AuthorInfo:
    with db.read() as session:
        return _info(session, _find(session, name))


def list_authors(db: Database, limit: int, after: str | None = None) -> list[AuthorInfo]:
    """Authors by name, ``limit`` at most, after the name ``after`` (paging)."""
    with db.read() as session:
        query = select(Author).order_by(col(Author.name)).limit(limit)
        if after is not None:
            query = query.where(col(Author.name) > after)
        return [_info(session, author) for author in session.exec(query).all()]


def set_author_enabled(db: Database, name: str, enabled: bool) -> AuthorInfo:
    with db.transaction() as session:
        author = _find(session, name)
        author.enabled = enabled
        session.add(author)
        return _info(session, author)


def set_bot_quota(
    db: Database,
    name: str,
    bot_quota: int | None,
    builds_at_once: int | None = None,
    submissions_per_hour: int | None = None,
    stored_bytes: int | None = None,
) -> AuthorInfo:
    """New bounds (None: unchanged); bots or bytes already beyond them stay (the author may add
    none until under them)."""
    if bot_quota is not None:
        _check_quota(bot_quota)
    check_bounds(builds_at_once, submissions_per_hour, stored_bytes)
    with db.transaction() as session:
        author = _find(session, name)
        if bot_quota is not None:
            author.bot_quota = bot_quota
        if builds_at_once is not None:
            author.builds_at_once = builds_at_once
        if submissions_per_hour is not None:
            author.submissions_per_hour = submissions_per_hour
        if stored_bytes is not None:
            author.stored_bytes = stored_bytes
        session.add(author)
        return _info(session, author)


def rotate_author_token(db: Database, name: str) -> str:
    """A new token for the author; the old one stops working at once."""
    token = new_token()
    with db.transaction() as session:
        author = _find(session, name)
        author.token_hash = hash_token(token)
        author.token_rotated_at = utc_now()
        session.add(author)
    return token


def owned_bots(session: Session, author_id: int) -> int:
    """Bots the author owns now, retired ones not counted."""
    query = select(func.count()).select_from(Bot).where(Bot.author_id == author_id)
    return int(session.exec(query.where(col(Bot.retired_at).is_(None))).one())


def check_quota(session: Session, author_id: int) -> None:
    """``InvalidRequestError`` when the author may own no more bots."""
    author = session.get(Author, author_id)
    if author is None:
        raise NotFoundError(f"no author with id {author_id}")
    owned = owned_bots(session, author_id)
    if owned >= author.bot_quota:
        raise InvalidRequestError(
            f"author {author.name} owns {owned} bots, their quota: ask the admin for more "
            "(kingmaker author quota), or remove one (kingmaker bot remove)"
        )


def _check_quota(bot_quota: int) -> None:
    if not 0 <= bot_quota <= MAX_BOT_QUOTA:
        raise InvalidRequestError(f"a bot quota must be from 0 to {MAX_BOT_QUOTA}, not {bot_quota}")


def _find(session: Session, name: str) -> Author:
    author = session.exec(select(Author).where(Author.name == name)).first()
    if author is None:
        raise NotFoundError(f"no author named {name[:64]!r}")
    return author


def _info(session: Session, author: Author) -> AuthorInfo:
    assert author.id is not None
    return AuthorInfo(
        id=author.id,
        name=author.name,
        enabled=author.enabled,
        bot_quota=author.bot_quota,
        bots=owned_bots(session, author.id),
        created_at=author.created_at,
        builds_at_once=author.builds_at_once,
        submissions_per_hour=author.submissions_per_hour,
        stored_bytes=author.stored_bytes,
        stored=stored_bytes_of(session, author.id),
    )
