"""Opening databases: good URLs work with the promised SQLite settings, bad ones fail cleanly."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from postgres_server import Databases
from sqlalchemy import text

from kingmaker.ladder.errors import DatabaseUrlError
from kingmaker.ladder.storage.db import URL_VARIABLE, open_database
from kingmaker.ladder.storage.migrate import current_revision, head_revision


def test_sqlite_file_gets_wal_foreign_keys_and_busy_timeout(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'k.db'}")
    with db.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA busy_timeout")).scalar() == 30000
    assert current_revision(db.engine) == head_revision()
    db.close()


def test_url_comes_from_the_environment_when_not_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "from_env.db"
    monkeypatch.setenv(URL_VARIABLE, f"sqlite:///{target}")
    db = open_database()
    db.close()
    assert target.exists()


def test_default_is_a_file_in_the_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(URL_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)
    open_database().close()
    assert (tmp_path / "kingmaker.db").exists()


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("not a url at all", "not a database URL"),
        ("", "not a database URL"),
        ("nosuchdialect://user@host/db", "unknown database dialect"),
        ("sqlite:///{tmp}/missing/folder/k.db", "does not exist"),
        ("sqlite:///{tmp}", "is a folder"),
        ("postgresql+nosuchdriver://u:p@localhost/db", "unknown database dialect"),
    ],
)
def test_bad_urls_raise_one_clear_error_and_create_nothing(tmp_path: Path, url: str, words: str) -> None:
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(DatabaseUrlError) as raised:
        open_database(url.format(tmp=tmp_path))
    message = str(raised.value)
    assert words in message
    assert "\n" not in message
    assert sorted(os.listdir(tmp_path)) == before


def test_an_unwritable_folder_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere (root)")
        with pytest.raises(DatabaseUrlError, match="not writable"):
            open_database(f"sqlite:///{locked / 'k.db'}")
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


def test_a_file_that_is_not_a_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    garbage = tmp_path / "notes.txt"
    garbage.write_bytes(b"this is not sqlite, just some text that is long enough" * 40)
    content = garbage.read_bytes()
    with pytest.raises(DatabaseUrlError, match="cannot use database"):
        open_database(f"sqlite:///{garbage}")
    assert garbage.read_bytes() == content
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]


def test_an_unreachable_server_is_one_clear_error() -> None:
    # Port 9 on localhost: nothing listens there; the error must name the URL, not a traceback,
    # and hide the password.
    with pytest.raises(DatabaseUrlError, match="cannot connect") as raised:
        open_database("postgresql://nobody:secret@127.0.0.1:9/none?connect_timeout=2")
    assert "\n" not in str(raised.value)
    assert "secret" not in str(raised.value)


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "postgresql+psycopg"])
def test_postgresql_urls_use_psycopg_3(scheme: str) -> None:
    # A bare postgresql:// would pick psycopg2 in SQLAlchemy, which kingmaker does not install.
    with pytest.raises(DatabaseUrlError, match=r"cannot connect.*postgresql\+psycopg://"):
        open_database(f"{scheme}://nobody@127.0.0.1:9/none?connect_timeout=2")


def test_a_database_missing_on_a_running_server_is_one_clear_error(postgres: Databases) -> None:
    url = postgres.admin_url.rsplit("/", 1)[0] + "/no_such_database"
    missing = r'cannot connect.*"no_such_database" does not exist'
    with pytest.raises(DatabaseUrlError, match=missing) as raised:
        open_database(url)
    assert "\n" not in str(raised.value)


def test_a_missing_driver_is_one_clear_error() -> None:
    if importlib.util.find_spec("MySQLdb") is not None:
        pytest.skip("a MySQL driver is installed here")
    with pytest.raises(DatabaseUrlError, match="no driver") as raised:
        open_database("mysql://nobody:secret@127.0.0.1:9/none")
    assert "\n" not in str(raised.value)
