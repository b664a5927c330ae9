"""A competition's own rows, the ground the other competition modules stand on: finding one by
name, the deadline's refusal, how a time is shown, and recording a decision exactly once."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session, select

from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.ladder.storage.models import Competition, CompetitionDecision, CompetitionPhase


def format_time(moment: datetime) -> str:
    """ISO 8601 UTC with a Z, to the second: how every competition time is shown."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def refuse_after_deadline(competition: Competition, now: datetime, what: str) -> None:
    if competition.phase != CompetitionPhase.OPEN or now >= competition.closes_at:
        raise InvalidRequestError(
            f"too late to {what}: competition {competition.name!r} "
            f"closed at {format_time(competition.closes_at)}"
        )


def by_name(session: Session, name: str, lock: bool = False) -> Competition:
    query = select(Competition).where(Competition.name == name)
    if lock:
        query = query.with_for_update().execution_options(populate_existing=True)
    competition = session.exec(query).first()
    if competition is None:
        raise NotFoundError(f"no competition named {name!r}")
    return competition


def record(
    session: Session,
    competition: Competition,
    key: str,
    kind: str,
    bot_id: int | None,
    reason: str,
    now: datetime,
    stage: int = 0,
) -> bool:
    """Record a decision once: False (and nothing written) if one with this key was recorded."""
    assert competition.id is not None
    found = session.exec(
        select(CompetitionDecision.id).where(
            CompetitionDecision.competition_id == competition.id, CompetitionDecision.key == key
        )
    ).first()
    if found is not None:
        return False
    session.add(
        CompetitionDecision(
            competition_id=competition.id,
            key=key,
            kind=kind,
            bot_id=bot_id,
            stage=stage,
            reason=reason,
            decided_at=now,
        )
    )
    return True
