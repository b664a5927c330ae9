"""How many of each league's matches are in each status, kept by the database itself: triggers on
``match`` (revision 0023) add and take away as a match is planned, changes status or goes, so
every writer keeps them right without knowing of them. A league's progress (after every result,
`league status`) reads a handful of these rows, where counting its matches read one index entry
per match the league ever planned: a continuous ladder grows for months."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class LeagueStatusCount(SQLModel, table=True):
    league_id: int = Field(foreign_key="league.id", primary_key=True)
    status: str = Field(primary_key=True)
    matches: int = 0
    """The league's matches in this status now (0 once the last left it)."""
