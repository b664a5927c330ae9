"""``kingmaker web``: the read-only website over the ladder database (see docs/web.md)."""

from __future__ import annotations

import socket
from pathlib import Path

import typer
from sqlalchemy import make_url

from kingmaker.ladder.errors import LadderError
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.addresses import MAX_PORT
from kingmaker.server.cli.common import console, fail, host_option, server_option
from kingmaker.server.locations import default_database_url
from kingmaker.server.web.serve import DEFAULT_HOST, DEFAULT_PORT, web_server


def web(
    host: str = typer.Option(
        DEFAULT_HOST,
        "--host",
        callback=host_option,
        help="Address to listen on (loopback by default: reach it from elsewhere through a TLS proxy).",
    ),
    port: int = typer.Option(DEFAULT_PORT, "--port", "-p", min=0, max=MAX_PORT, help="Port to listen on."),
    database_url: str | None = typer.Option(
        None,
        "--database-url",
        help="The ladder's database, as `serve` uses it. Default: $KINGMAKER_DATABASE_URL, else "
        "$KINGMAKER_HOME/kingmaker.db ($KINGMAKER_HOME: ./.kingmaker).",
    ),
    server: str | None = typer.Option(
        None,
        "--server",
        callback=server_option,
        help="The kingmaker server (host:port) the authors' console at /console calls with each "
        "author's token; without it the site is read-only and the console says so.",
    ),
) -> None:
    """Serve the standings, bots, leagues and match replays as a website (read-only) until Ctrl-C."""
    url = database_url or default_database_url()
    sqlite_file = None
    if "://" in url and make_url(url).get_backend_name() == "sqlite":
        sqlite_file = make_url(url).database
    if sqlite_file and not Path(sqlite_file).exists():
        fail(f"no database at {sqlite_file}: start `kingmaker serve` first, or give --database-url")
    try:
        # Read-only: never migrate from here (the server owns the schema).
        db = open_database(url, upgrade=False)
    except (OSError, LadderError) as error:
        fail(str(error))
    try:
        with socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET):
            pass
    except OSError as error:
        db.close()
        fail(f"cannot serve the website on {host}:{port}: {error.strerror or error}")
    site = web_server(db, host, port, admin_address=server)
    console.print(f"kingmaker web on [bold]http://{host}:{port}[/] over {db.url}", soft_wrap=True)
    try:
        site.run()
    except SystemExit:  # uvicorn exits when it cannot bind (a port taken since the check above)
        pass
    finally:
        db.close()
    if not site.started:
        fail(f"cannot serve the website on {host}:{port} (is the port in use?)")
