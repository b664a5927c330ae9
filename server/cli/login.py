"""``kingmaker login``, ``logout`` and ``whoami``: an author's server and token, kept for later commands.

``login`` checks the token with the server (``WhoAmI``) and stores it with the server's address
in ``$XDG_CONFIG_HOME/kingmaker/login.json`` (``~/.config`` when unset): the folder is made 0700
and the file 0600, written whole or not at all. Later commands reach that server with that token
without flags (see ``common.caller_token`` for the order in which a token is found).
"""

from __future__ import annotations

import typer

from kingmaker.server.cli.common import (
    ServerOption,
    TokenOption,
    admin_client,
    caller_token,
    console,
    fail,
    server_address,
)
from kingmaker.server.cli.credentials import Login, forget_login, load_login, login_path, save_login


def login(
    server: str | None = ServerOption,
    token: str | None = typer.Option(
        None, "--token", "-t", help="Your author token (asked for, unechoed, when left out)."
    ),
) -> None:
    """Check an author's (or the admin's) token with the server and keep both for later commands."""
    from kingmaker.v1 import admin_pb2

    address = server_address(server)
    if token is None:
        token = typer.prompt("token", hide_input=True).strip()
    if not token:
        fail("no token given")
    with admin_client(address, token) as client:
        me = client.call("WhoAmI", admin_pb2.WhoAmIRequest())
    try:
        save_login(Login(server=address, token=token))
    except OSError as error:
        fail(f"cannot save the login in {login_path()}: {error.strerror or error}")
    console.print(f"logged in to {address} as {_who(me)}; saved in {login_path()}", soft_wrap=True)


def logout() -> None:
    """Forget the stored login."""
    if forget_login():
        console.print(f"logged out: removed {login_path()}", soft_wrap=True)
    else:
        console.print("not logged in")


def whoami(server: str | None = ServerOption, admin_token: str | None = TokenOption) -> None:
    """Say who the server takes you for, with the token the commands would send."""
    from kingmaker.v1 import admin_pb2

    address = server_address(server)
    stored = load_login()
    with admin_client(address, admin_token) as client:
        me = client.call("WhoAmI", admin_pb2.WhoAmIRequest())
    how = "no token" if caller_token(admin_token, address) is None else _source(admin_token, address, stored)
    console.print(f"{address}: {_who(me)} ({how})", soft_wrap=True)


def _who(me: object) -> str:
    role = getattr(me, "role", "")
    if role == "author":
        author = me.author  # type: ignore[attr-defined]
        return f"author {author.name} ({author.bots} of {author.bot_quota} bots)"
    return "the admin" if role == "admin" else "anyone (no token: public reads only)"


def _source(explicit: str | None, address: str, stored: Login | None) -> str:
    import os

    if explicit:
        return "token from the command line"
    if os.environ.get("KINGMAKER_ADMIN_TOKEN"):
        return "token from $KINGMAKER_ADMIN_TOKEN"
    if stored is not None and stored.server == address:
        return f"token from {login_path()}"
    return "the admin token file of the server's home"
