"""Alembic's entry point for the ladder schema. Run it through kingmaker.ladder.storage.migrate only."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import kingmaker.ladder.storage.models  # noqa: F401  (registers the tables on SQLModel.metadata)

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run ladder migrations through kingmaker.ladder.storage.migrate, with a connection")

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    # SQLite cannot ALTER most things: batch mode rebuilds the table instead.
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
