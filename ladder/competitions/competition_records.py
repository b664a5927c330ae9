"""Plain values a competition is read as (``competitions.get_competition``): frozen dataclasses,
never live rows, as everything else the ladder returns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class EntryInfo:
    bot: str
    author: str | None
    active_version: int | None
    """The version that plays elsewhere now (after the deadline, perhaps a newer one)."""
    selected_version: int | None
    frozen_version: int | None
    """The version its finals play (None until the deadline, or if it was dropped)."""
    seed: int | None
    out_at_stage: int | None
    tier: str | None = None
    """Its tier's name (competitions with tiers only)."""


@dataclass(frozen=True)
class DecisionInfo:
    kind: str
    bot: str | None
    stage: int
    reason: str
    decided_at: datetime


@dataclass(frozen=True)
class StandingInfo:
    place: int
    bot: str
    version: int | None
    mu: float
    sigma: float
    conservative: float
    matches: int
    wins: int
    note: str = ""
    """"cut after stage 1", "lost in stage 2", "winner"..."""
    points: float = 0.0
    """Swiss finals: the points that order them (each round worth at most 1)."""
    tier: str = ""
    """While open, in a competition with tiers: the tier these standings are of."""
    buchholz: float = 0.0
    """Swiss finals: the sum of the points of every opponent met (the first tie-break)."""


@dataclass(frozen=True)
class StageLeague:
    stage: int
    slot: int
    league: str
    bots: tuple[str, ...]
    finished: bool
    match_ids: tuple[int, ...] = ()
    """The league's finished matches (each has a replay on the website)."""


@dataclass(frozen=True)
class BracketMeeting:
    """One meeting of a bracket, decided, in play or still to come: the tree the page draws."""

    stage: int
    slot: int
    bots: tuple[str | None, str | None]
    """Seed order within the meeting; None: a bye, or not known yet (a meeting to come)."""
    winner: str | None = None
    league: str | None = None
    """Its league (None: a bye, or not made yet)."""
    side: str = ""
    """Double elimination: "winners", "losers", "grand final" or "reset" ("" in single elimination)."""
    round: int = 0
    """Double elimination: its round within its side (1, 2, ...)."""
    index: int = 0
    """Double elimination: its place within that round, top first."""
    waiting: tuple[str, str] = ("", "")
    """Double elimination: what each seat not known yet waits for ("loser of W2.1")."""
    played: bool = True
    """False for a reset that was not needed (the winners' bracket's winner took the grand final)."""


@dataclass(frozen=True)
class SwissRound:
    """One Swiss round as played: its tables, each seat with the points it scored that round,
    and who sat out (a bye)."""

    stage: int
    tables: tuple[tuple[tuple[str, float], ...], ...]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompetitionInfo:
    name: str
    game: str
    players: int
    opens_at: datetime
    closes_at: datetime
    phase: str
    finals: dict[str, Any]
    open_league: str | None
    stage: int
    winner: str | None
    entries: tuple[EntryInfo, ...] = ()
    decisions: tuple[DecisionInfo, ...] = ()
    standings: tuple[StandingInfo, ...] = ()
    """The open ladder's while open; the finals' from the deadline on."""
    stages: tuple[StageLeague, ...] = ()
    id: int = 0
    tiers: tuple[dict[str, Any], ...] = ()
    """Lowest first: ``{"name", "boss", "league"}`` (the boss None for a top tier without one)."""
    promote_after: int = 0
    relegate_after: int = 0
    """Tiers: last places in a row in a tier before an entry moves down (0: never)."""
    finals_at: datetime | None = None
    """When the finals start by themselves (the deadline unless stated)."""
    swiss_rounds: tuple[SwissRound, ...] = ()
    bracket: tuple[BracketMeeting, ...] = ()
    """Bracket finals: every meeting of the tree, stage by stage."""
    """Swiss finals: every round so far."""
