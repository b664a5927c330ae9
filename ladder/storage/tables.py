"""A model's Core table, for the statements the hot paths build once and run without the ORM's
unit of work (a claim, a result: docs/scaling.md), and how such a statement reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVarTuple, overload

from sqlalchemy import CursorResult, Executable, Table
from sqlalchemy.sql.selectable import TypedReturnsRows
from sqlmodel import Session, SQLModel

Columns = TypeVarTuple("Columns")


def core_table(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


@overload
def read_rows(
    session: Session, statement: TypedReturnsRows[*Columns], params: Mapping[str, Any]
) -> CursorResult[*Columns]: ...
@overload
def read_rows(
    session: Session, statement: Executable, params: Mapping[str, Any]
) -> CursorResult[*tuple[Any, ...]]: ...
def read_rows(
    session: Session, statement: Executable, params: Mapping[str, Any]
) -> CursorResult[*tuple[Any, ...]]:
    """Run a Core read on the session's connection, in its transaction, without the ORM's handling
    of each row (its rows are columns, not objects)."""
    return run_core(session, statement, params)


def run_core(
    session: Session, statement: Executable, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]
) -> CursorResult[*tuple[Any, ...]]:
    """Run a Core statement (a read, or a write of many rows at once: a list of parameters) on the
    session's connection, in its transaction, after writing what the session holds pending: the
    statement runs past the session, so nothing of it may be left unwritten."""
    session.flush()
    return session.connection().execute(statement, params)
