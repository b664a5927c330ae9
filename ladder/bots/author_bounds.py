"""An author's bounds: builds at once, submissions per hour, bytes stored (archives and builds).

Each bound is a column of ``Author`` the admin sets (``kingmaker author quota``). A submission past
one is refused, before a byte of it is kept, in one line that names the bound and how to free it;
a build past ``builds_at_once`` is not refused but waits, queued (``server/new_versions/build_queue.py``). The
admin's own submissions are not bounded: the operator is trusted with the machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import Session, col, func, select

from kingmaker.ladder.bounds import Bound
from kingmaker.ladder.errors import BoundReachedError, InvalidRequestError, NotFoundError
from kingmaker.ladder.storage.models import Author, Bot, BotVersion, utc_now

MiB = 1024 * 1024
BUILDS_AT_ONCE = Bound("builds at once", 1, 64)
SUBMISSIONS_PER_HOUR = Bound("submissions per hour", 0, 10_000)
STORED_BYTES = Bound("bytes stored", 0, 2**50, "2^50")


@dataclass(frozen=True)
class AuthorBounds:
    builds_at_once: int
    submissions_per_hour: int
    stored_bytes: int


def bounds_of(session: Session, author_id: int) -> AuthorBounds:
    author = session.get(Author, author_id)
    if author is None:
        raise NotFoundError(f"no author with id {author_id}")
    return AuthorBounds(author.builds_at_once, author.submissions_per_hour, author.stored_bytes)


def submissions_in_the_last_hour(session: Session, author_id: int) -> int:
    since = utc_now() - timedelta(hours=1)
    query = (
        select(func.count())
        .select_from(BotVersion)
        .where(
            BotVersion.submitted_by == author_id,
            BotVersion.source == "submission",
            col(BotVersion.created_at) > since,
        )
    )
    return int(session.exec(query).one())


def stored_bytes_of(session: Session, author_id: int) -> int:
    """Bytes the author's bots keep: each archive and built folder of a version not pruned, once
    per hash (a second version with the same archive is the same blob)."""
    archives, builds = _kept(session, author_id)
    return sum(archives.values()) + sum(builds.values())


def _kept(session: Session, author_id: int) -> tuple[dict[str, int], dict[str, int]]:
    """The author's archives and built folders not pruned, each hash with its bytes."""
    rows = session.exec(
        select(
            BotVersion.archive_hash, BotVersion.archive_bytes, BotVersion.build_hash, BotVersion.build_bytes
        )
        .join(Bot, col(Bot.id) == col(BotVersion.bot_id))
        .where(Bot.author_id == author_id, col(BotVersion.pruned_at).is_(None))
    ).all()
    archives = {digest: size or 0 for digest, size, _, _ in rows if digest}
    builds = {digest: size or 0 for _, _, digest, size in rows if digest}
    return archives, builds


def check_built_bytes(session: Session, author_id: int, build_hash: str, build_bytes: int) -> None:
    """``BoundReachedError`` when keeping a built folder of ``build_bytes`` (its apparent size:
    a sparse file at its full length) would take the author past their bytes stored; a folder
    they keep already counts once."""
    author = session.get(Author, author_id)
    if author is None:
        raise NotFoundError(f"no author with id {author_id}")
    archives, builds = _kept(session, author_id)
    stored = sum(archives.values()) + sum(builds.values())
    if build_hash not in builds and stored + build_bytes > author.stored_bytes:
        raise BoundReachedError(
            f"author {author.name} keeps {stored / MiB:.1f} MiB of archives and builds; this "
            f"{build_bytes / MiB:.1f} MiB built folder would pass their bound (bytes stored: "
            f"{author.stored_bytes / MiB:g} MiB): prune old versions (kingmaker prune), or ask the "
            f"admin for more (kingmaker author quota {author.name} --stored-mib N)",
            "bytes stored",
        )


def check_submission_bounds(session: Session, author_id: int, incoming_bytes: int) -> None:
    """``InvalidRequestError``, in one line naming the bound and how to free it, when a new
    submission of ``incoming_bytes`` would take the author past a bound."""
    author = session.get(Author, author_id)
    if author is None:
        raise NotFoundError(f"no author with id {author_id}")
    made = submissions_in_the_last_hour(session, author_id)
    if made >= author.submissions_per_hour:
        raise BoundReachedError(
            f"author {author.name} made {made} submissions in the last hour, their bound "
            f"(submissions per hour: {author.submissions_per_hour}): wait, or ask the admin for more "
            f"(kingmaker author quota {author.name} --submissions-per-hour N)",
            "submissions per hour",
        )
    stored = stored_bytes_of(session, author_id)
    if stored + incoming_bytes > author.stored_bytes:
        raise BoundReachedError(
            f"author {author.name} keeps {stored / MiB:.1f} MiB of archives and builds; this "
            f"{incoming_bytes / MiB:.1f} MiB would pass their bound (bytes stored: "
            f"{author.stored_bytes / MiB:g} MiB): prune old versions (kingmaker prune), or ask the "
            f"admin for more (kingmaker author quota {author.name} --stored-mib N)",
            "bytes stored",
        )


def check_bounds(
    builds_at_once: int | None, submissions_per_hour: int | None, stored_bytes: int | None
) -> None:
    try:
        if builds_at_once is not None:
            BUILDS_AT_ONCE.check(builds_at_once)
        if submissions_per_hour is not None:
            SUBMISSIONS_PER_HOUR.check(submissions_per_hour)
        if stored_bytes is not None:
            STORED_BYTES.check(stored_bytes)
    except ValueError as error:
        raise InvalidRequestError(str(error)) from None
