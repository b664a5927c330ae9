"""Submissions and versions, handed to the submission pipeline
(``server/services/submissions.py``) once the caller is known to be allowed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from kingmaker.ladder.bots import bots
from kingmaker.server.services.admin.base import CALLER, AdminBase, Context, permitted
from kingmaker.server.services.permissions import Role
from kingmaker.v1 import admin_pb2


class VersionRpcs(AdminBase):
    """Submissions and versions: the work is ``server/services/submissions.py``."""

    @permitted
    async def Submit(self, request: Any, context: Context) -> admin_pb2.VersionInfo:
        return await self._submissions.submit(request, context, author_id=CALLER.get().author_id)

    @permitted
    async def WatchVersion(
        self, request: admin_pb2.GetVersionRequest, context: Context
    ) -> AsyncIterator[admin_pb2.VersionInfo]:
        caller = CALLER.get()
        owner = caller.is_admin
        if caller.role is Role.AUTHOR:
            owners = await asyncio.to_thread(bots.owners_of, self.db, [request.bot])
            owner = caller.owns(owners.get(request.bot))
        # The build's live output is its owner's: nobody else's stream even moves when it prints.
        async for message in self._submissions.watch_version(request, context, live_log=owner):
            yield message

    @permitted
    async def GetVersion(
        self, request: admin_pb2.GetVersionRequest, context: Context
    ) -> admin_pb2.VersionInfo:
        return await self._submissions.get_version(request)

    @permitted
    async def ListVersions(
        self, request: admin_pb2.ListVersionsRequest, context: Context
    ) -> admin_pb2.ListVersionsResponse:
        return await self._submissions.list_versions(request)

    @permitted
    async def RollbackBot(self, request: admin_pb2.RollbackBotRequest, context: Context) -> admin_pb2.BotInfo:
        return await self._submissions.rollback(request)

    @permitted
    async def PruneVersions(
        self, request: admin_pb2.PruneVersionsRequest, context: Context
    ) -> admin_pb2.PruneVersionsResponse:
        caller = CALLER.get()
        return await self._submissions.prune(request, None if caller.is_admin else caller)

    @permitted
    async def SetLadderPolicy(
        self, request: admin_pb2.SetLadderPolicyRequest, context: Context
    ) -> admin_pb2.LadderPolicy:
        return await self._submissions.ladder_policy(request, context)
