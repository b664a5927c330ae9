"""The Admin service's common ground: the permission check every method passes through
(``permitted``: who may call what is ``permissions.PERMISSIONS``), the caller of the call being
served (``CALLER``), and the server's parts every method reaches (``AdminBase``).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from typing import Any, TypeAlias, TypeVar

import grpc
from google.protobuf.message import Message

from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.errors import (
    BoundReachedError,
    ConflictError,
    ForbiddenError,
    LadderError,
    NotFoundError,
)
from kingmaker.ladder.storage.db import Database
from kingmaker.server.grpc_abort import abort
from kingmaker.server.jail.launcher import jail_refusal
from kingmaker.server.refereeing.archive import MemoryArchive
from kingmaker.server.scheduling.scheduler import LeagueRunner
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Roster
from kingmaker.server.seats.sessions import SessionPool
from kingmaker.server.services import privacy
from kingmaker.server.services.admin.guests import GuestSeats
from kingmaker.server.services.one_off_matches import OneOffMatches
from kingmaker.server.services.permissions import (
    ADMIN,
    ANYONE,
    Caller,
    Denied,
    Role,
    bearer,
    check_bots,
    check_rule,
    is_admin_token,
)
from kingmaker.server.services.submissions import SubmissionService

T = TypeVar("T")
Context: TypeAlias = grpc.aio.ServicerContext

_STATUS = {
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    ConflictError: grpc.StatusCode.ALREADY_EXISTS,
    ForbiddenError: grpc.StatusCode.PERMISSION_DENIED,
    BoundReachedError: grpc.StatusCode.RESOURCE_EXHAUSTED,
}


CALLER: ContextVar[Caller] = ContextVar("caller", default=ANYONE)
"""Who makes the call being served (set by ``permitted`` for the method's own task)."""


def permitted(method: Callable[..., T]) -> Callable[..., T]:
    """Check the call against the permission table before the method runs (``permissions``),
    make the caller known to it (``CALLER``), show its reply as the caller may see it
    (``privacy``: field by field), and turn ladder errors into statuses."""
    name = method.__name__

    async def check(self: AdminBase, request: Any, context: Context) -> Caller:
        try:
            caller = await self.caller(context)
            permission = check_rule(name, caller)
            if permission.bots is not None and not caller.is_admin:
                names = permission.bots(request)
                owners = await asyncio.to_thread(bots.owners_of, self.db, names)
                check_bots(name, caller, permission, owners)
        except Denied as denied:
            status = (
                grpc.StatusCode.UNAUTHENTICATED
                if denied.unauthenticated
                else grpc.StatusCode.PERMISSION_DENIED
            )
            await abort(context, status, str(denied))
        CALLER.set(caller)
        return caller

    if asyncio.iscoroutinefunction(method):

        @functools.wraps(method)
        async def checked(self: AdminBase, request: Any, context: Context) -> Any:
            caller = await check(self, request, context)
            try:
                return await self._shown(await method(self, request, context), caller)
            except LadderError as error:
                await abort(context, _STATUS.get(type(error), grpc.StatusCode.INVALID_ARGUMENT), str(error))

        return checked  # type: ignore[return-value]

    @functools.wraps(method)
    async def streamed(self: AdminBase, request: Any, context: Context) -> AsyncIterator[Any]:
        caller = await check(self, request, context)
        try:
            async for item in method(self, request, context):  # type: ignore[attr-defined]
                yield await self._shown(item, caller)
        except LadderError as error:
            await abort(context, _STATUS.get(type(error), grpc.StatusCode.INVALID_ARGUMENT), str(error))

    return streamed  # type: ignore[return-value]


class AdminBase:
    """What every part of the Admin service shares: the server's parts, and who is calling."""

    def __init__(
        self,
        admin_token: str,
        db: Database,
        pool: SessionPool,
        roster: Roster,
        league_runner: LeagueRunner,
        archive: MemoryArchive,
        default_control: TimeControl,
        submissions: SubmissionService | None = None,
        guests: int = 0,
        rate_people: bool = False,
    ) -> None:
        self.admin_token = admin_token
        self.db = db
        self.pool = pool
        self.roster = roster
        self.league_runner = league_runner
        self.archive = archive
        self.default_control = default_control
        self.submissions = submissions
        self.one_off = OneOffMatches()
        """Each author's one-off matches and duels at once, bounded."""
        self.guest_seats = GuestSeats(guests)
        """The guests at tables now, at most ``guests`` (0: none allowed)."""
        self.rate_people = rate_people
        """Whether an author's match with people is rated apart (``ServerConfig.rate_people``)."""

    async def caller(self, context: Context) -> Caller:
        """Who makes this call, by its token: ``Denied`` for a token the server does not know."""
        token = bearer(context.invocation_metadata())
        if not token:
            return ANYONE
        if is_admin_token(token, self.admin_token):
            return ADMIN
        author = await asyncio.to_thread(authors.authenticate_author, self.db, token)
        if author is None:
            raise Denied(
                "the server does not know this token (neither the admin's nor an enabled author's)",
                unauthenticated=True,
            )
        return Caller(Role.AUTHOR, author.id, author.name)

    async def _shown(self, reply: T, caller: Caller) -> T:
        """The reply as this caller may see it, field by field (``privacy.FIELDS``)."""
        if caller.is_admin or not isinstance(reply, Message):
            return reply
        names = privacy.subjects(reply)
        owners: dict[str, int | None] = {}
        if names and caller.role is Role.AUTHOR:
            owners = await asyncio.to_thread(bots.owners_of, self.db, sorted(names))
        privacy.redact(reply, privacy.for_caller(caller, owners))
        return reply

    def _connected(self, bot_id: int) -> bool:
        return bool(self.pool.sessions_of(bot_id))

    @property
    def _submissions(self) -> SubmissionService:
        assert self.submissions is not None, "the server has no submission pipeline"
        return self.submissions

    def _jail_refusal(self) -> str | None:
        return jail_refusal(self.roster.sandbox) if self.roster.sandbox is not None else None

    async def _refuse_without_jail(self, context: Context, names: list[str], ad_hoc: bool = False) -> None:
        """Secure by default: nothing starts that would launch a bot with no jail to run it in
        (the launcher would refuse each bot anyway; this says so before any match begins)."""
        refusal = self._jail_refusal()
        if refusal is None:
            return
        for name in names if not ad_hoc else []:
            try:
                bot = await asyncio.to_thread(bots.get_bot, self.db, name)
            except LadderError:
                continue  # the request's own check reports an unknown bot
            ad_hoc = ad_hoc or bot.command is not None
        if ad_hoc:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, refusal)
