"""What every client command shares: reaching the server, and failing with one clear line.

Every command imports this module, so it imports little: grpc and the generated code load when a
command reaches the server, and nothing here loads the server itself, the SDK or the engines."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.text import Text

from kingmaker.server.addresses import AddressError, check_host, parse_address
from kingmaker.server.cli.credentials import load_login
from kingmaker.server.cli.visible_console import VisibleConsole
from kingmaker.server.locations import (
    DEFAULT_ADDRESS,
    LOCAL,
    admin_lane,
    admin_token_path,
    local_address,
    server_coming_up,
)

if TYPE_CHECKING:
    import grpc

CONNECT_WAIT_SECONDS = 5.0
"""How long a command waits for the server to answer before saying it cannot reach it."""
STARTING_WAIT_SECONDS = 120.0
"""How long it waits for a server of its home that is still starting (``server_coming_up``)."""
BUSY_WAIT_SECONDS = 60.0
"""How long it waits for a server that takes connections but has not answered yet: busy (a
thousand bots connecting at once, say), not gone (issue 35)."""
RECONNECT_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
)
"""While waiting, try to connect again every 0.1-0.5 s: gRPC's default backoff (1 s, then 1.6x)
tries at about 0, 1, 2.6 and 5.2 s, so a server that took 3 s to start listening (`kingmaker
serve &` on a loaded machine) was missed by a command started with it."""

console = VisibleConsole()
errors = VisibleConsole(stderr=True)


def server_option(value: str | None) -> str | None:
    """``--server``: an address a server listens on, checked before anything is asked of it;
    ``local``: this home's own server (``locations.local_address``)."""
    if value == LOCAL:
        return local_address()
    return None if value is None else _checked(parse_address, value)


def listen_option(value: str) -> str:
    """``serve --address``: where to listen (port 0: a free one)."""
    return _checked(lambda text: parse_address(text, listening=True), value)


def tcp_listen_option(value: str | None) -> str | None:
    """A TCP address to listen on (``serve --admin-address``; port 0: a free one)."""
    return (
        None
        if value is None
        else _checked(lambda text: parse_address(text, listening=True, unix=False), value)
    )


def tcp_option(value: str | None) -> str | None:
    """An address that must be TCP (``--ray-address``)."""
    return None if value is None else _checked(lambda text: parse_address(text, unix=False), value)


def host_option(value: str) -> str:
    """A host to listen on, without a port (``web --host``, ``serve --web-host``)."""
    return _checked(check_host, value)


def _checked(parse: Callable[[str], object], value: str) -> str:
    """The address ``parse`` makes of ``value``, as gRPC takes it, or a one-line usage error."""
    try:
        return str(parse(value))
    except AddressError as error:
        raise typer.BadParameter(str(error)) from None


ServerOption = typer.Option(
    None,
    "--server",
    "-s",
    callback=server_option,
    help="Server address (host:port, [ipv6]:port or unix:/path), or `local`: this machine's own "
    "server (the one `kingmaker serve` runs here), even once you have logged in to another. Default: "
    "$KINGMAKER_SERVER, else the server of your `kingmaker login`, else 127.0.0.1:50051.",
)
BotServerOption = typer.Option(
    None,
    "--server",
    "-s",
    callback=server_option,
    help="Server address (host:port, [ipv6]:port or unix:/path), or `local`: this machine's own "
    "server. Default: $KINGMAKER_SERVER.",
)
"""``--server`` of the commands that play as a bot (``bridge``, ``play-policy``)."""
BotTokenOption = typer.Option(None, "--token", help="The bot's token. Default: $KINGMAKER_TOKEN.")
TokenOption = typer.Option(
    None,
    "--admin-token",
    "--token",
    help="The admin token or an author's. Default: $KINGMAKER_ADMIN_TOKEN, else your `kingmaker login` "
    "for this server, else the admin token file of the server's home; none: public reads only.",
)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one line on stderr and exit non-zero."""
    # A Text, not markup: a message may quote what was typed, brackets and all ("[::1]:99999"),
    # and rich's escape would double a trailing backslash.
    errors.print(Text.assemble(("error:", "bold red"), " ", message), highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@contextmanager
def usage_errors_in_one_line() -> Iterator[None]:
    """A usage error (a value out of its bound, a missing option, an unknown command) as one line
    on stderr with its exit code (2), like every other failure of the command line, instead of
    typer's usage and boxed message."""
    try:
        yield
    except typer.TyperException as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # not an error: the help (as typer tells it)
            raise
        context = getattr(error, "ctx", None)
        where = f" (see {context.command_path} --help)" if context is not None else ""
        fail(f"{error.format_message()}{where}", code=error.exit_code)


def server_address(explicit: str | None) -> str:
    """--server (checked as it was parsed), else $KINGMAKER_SERVER, else the server of your
    `kingmaker login`, else loopback."""
    if explicit:
        return explicit
    text = os.environ.get("KINGMAKER_SERVER")
    if text is None:
        stored = load_login()
        return stored.server if stored is not None else DEFAULT_ADDRESS
    if text == LOCAL:
        return local_address()
    try:
        return str(parse_address(text))
    except AddressError as error:
        fail(f"$KINGMAKER_SERVER: {error}", code=2)


def caller_token(explicit: str | None, address: str) -> str | None:
    """The token a command sends: given, else $KINGMAKER_ADMIN_TOKEN, else your `kingmaker login`
    (only to the server you logged in to), else the admin token the server wrote in its home (a
    command run where `serve` runs); None: no token, for what anyone may read."""
    token = explicit or os.environ.get("KINGMAKER_ADMIN_TOKEN")
    if token:
        return token
    stored = load_login()
    if stored is not None and stored.server == address:
        return stored.token
    path = admin_token_path()
    if path.exists():
        return path.read_text().strip()
    return None


class AdminClient:
    """Calls the Admin service with the admin token, turning gRPC errors into one clear line."""

    def __init__(self, channel: grpc.Channel, token: str | None, address: str) -> None:
        from kingmaker.v1 import admin_pb2_grpc

        self._stub = admin_pb2_grpc.AdminStub(channel)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self._address = address

    def call(self, method: str, request: Any, timeout: float | None = None) -> Any:
        import grpc

        try:
            return getattr(self._stub, method)(request, metadata=self._metadata, timeout=timeout)
        except grpc.RpcError as error:
            self._fail(error)

    def stream(self, method: str, request: Any) -> Iterator[Any]:
        """The messages of a server-streaming call, with errors turned into one line."""
        import grpc

        try:
            yield from getattr(self._stub, method)(request, metadata=self._metadata)
        except grpc.RpcError as error:
            self._fail(error)

    def _fail(self, error: grpc.RpcError) -> NoReturn:
        import grpc

        code = error.code()
        if code == grpc.StatusCode.UNAVAILABLE:
            fail(f"cannot reach the server at {self._address} (is `kingmaker serve` running?)")
        if code == grpc.StatusCode.UNAUTHENTICATED:
            fail(f"the server refused the call: {error.details()}")
        fail(error.details() or code.name)


@contextmanager
def admin_client(server: str | None, token: str | None) -> Iterator[AdminClient]:
    import grpc

    address = server_address(server)
    try:
        credentials = tls_credentials()
    except OSError as error:
        fail(f"cannot read the CA in KINGMAKER_TLS_CA: {error.strerror or error}")
    # The server of this home: its admin lane, a private socket no bot's calls queue in.
    lane = admin_lane(address)
    if lane is not None:
        channel = grpc.insecure_channel(lane, options=RECONNECT_OPTIONS)
    elif credentials is None:
        channel = grpc.insecure_channel(address, options=RECONNECT_OPTIONS)
    else:
        channel = grpc.secure_channel(address, credentials, options=RECONNECT_OPTIONS)
    with channel:
        wait_until_listening(channel, lane or address)
        yield AdminClient(channel, caller_token(token, address), address)


def wait_until_listening(channel: grpc.Channel, address: str) -> None:
    """Give a server started a moment ago (`kingmaker serve &`) a few seconds to listen.

    Asked with a health check that waits for the connection, not with grpc.channel_ready_future:
    that one leaves a thread polling the channel every 0.2 s, which closing the channel waits
    for, and that wait was a third of `kingmaker ladder`'s time."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    check = health_pb2_grpc.HealthStub(channel).Check
    waited, limit = 0.0, CONNECT_WAIT_SECONDS
    while True:
        try:
            check(health_pb2.HealthCheckRequest(), timeout=CONNECT_WAIT_SECONDS, wait_for_ready=True)
            return
        except grpc.RpcError as error:
            if error.code() not in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
                return  # something answers: the command's own calls say what is wrong with it
        waited += CONNECT_WAIT_SECONDS
        # A server of this home that is still starting (its workers, on a loaded machine) is
        # worth a longer wait than a server that is not there at all; so is one that takes
        # connections but is slow to answer.
        busy = waited >= limit and accepts_connections(address)
        if busy and limit < BUSY_WAIT_SECONDS:
            limit = BUSY_WAIT_SECONDS
        if waited >= limit and server_coming_up(address) and limit < STARTING_WAIT_SECONDS:
            limit = STARTING_WAIT_SECONDS
        if waited >= limit:
            if busy:
                fail(
                    f"the server at {address} takes connections but did not answer within {waited:.0f} s: "
                    "it is too busy to answer now; try again shortly"
                )
            fail(f"cannot reach the server at {address} (is `kingmaker serve` running?)")


def accepts_connections(address: str) -> bool:
    """Whether something listens at ``address`` (a TCP or Unix socket connection succeeds): a
    server that does not answer a health check then is busy, not gone."""
    import socket

    try:
        parsed = parse_address(address)
    except AddressError:
        return False
    try:
        if parsed.path:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.settimeout(CONNECT_WAIT_SECONDS)
                probe.connect(parsed.path)
        else:
            with socket.create_connection((parsed.host, parsed.port), timeout=CONNECT_WAIT_SECONDS):
                pass
    except OSError:
        return False
    return True


def tls_credentials() -> grpc.ChannelCredentials | None:
    """TLS credentials trusting the CA in the PEM file named by KINGMAKER_TLS_CA, if it is set: the
    rule of ``kingmaker.sdk.client.tls_credentials``, not imported from there because importing
    the SDK loads its codecs and every game's engine."""
    import grpc

    authority = os.environ.get("KINGMAKER_TLS_CA")
    if not authority:
        return None
    with open(authority, "rb") as pem:
        return grpc.ssl_channel_credentials(root_certificates=pem.read())


def require_game(client: AdminClient, game: str) -> None:
    """Fail with one line unless the server referees ``game``."""
    from kingmaker.v1 import admin_pb2

    known = [info.name for info in client.call("ListGames", admin_pb2.ListGamesRequest()).games]
    if game not in known:
        fail(f"unknown game {game!r} (known games: {', '.join(sorted(known))})")
