"""Schema migrations, run in code: an installed kingmaker upgrades a database in place.

The alembic scripts live in the package (``migrations/env.py`` and ``migrations/versions/``) and
alembic is configured here rather than by an ``alembic.ini``, so nothing but ``.py`` files ships.
To add a revision after changing ``models.py``::

    python -c "from kingmaker.ladder.storage.migrate import new_revision
    new_revision('sqlite:///x.db', 'why')"

then read and tidy the generated file (autogenerate is a draft, not a promise).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(connection: Connection | None = None) -> Config:
    """An alembic Config pointing at the packaged scripts, handing env.py our connection."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the database behind ``engine`` to ``revision`` in one transaction."""
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), revision)


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at; None for an empty (never migrated) database."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def new_revision(url: str, message: str) -> None:
    """Autogenerate a draft revision from the difference between ``url``'s schema and the models."""
    engine = create_engine(url)
    with engine.begin() as connection:
        command.revision(alembic_config(connection), message=message, autogenerate=True)
    engine.dispose()
