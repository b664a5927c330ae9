"""A model's Core table, for the statements the hot paths build once and run without the ORM's
unit of work (a claim, a result: docs/scaling.md)."""

from __future__ import annotations

from sqlalchemy import Table
from sqlmodel import SQLModel


def core_table(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table
