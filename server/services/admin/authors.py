"""Authors: who the caller is, and the admin adding, listing, disabling and limiting authors."""

from __future__ import annotations

import asyncio

import grpc

from kingmaker.ladder import bounds
from kingmaker.ladder.bots import authors, notices
from kingmaker.server.grpc_abort import abort
from kingmaker.server.services import convert, validation
from kingmaker.server.services.admin.base import CALLER, AdminBase, Context, permitted
from kingmaker.server.services.permissions import Role
from kingmaker.v1 import admin_pb2


class AuthorRpcs(AdminBase):
    """Who the caller is, and the admin's management of authors."""

    @permitted
    async def WhoAmI(self, request: admin_pb2.WhoAmIRequest, context: Context) -> admin_pb2.WhoAmIResponse:
        caller = CALLER.get()
        response = admin_pb2.WhoAmIResponse(role=caller.role.value)
        if caller.role is Role.AUTHOR:
            author = await asyncio.to_thread(authors.get_author, self.db, caller.name)
            response.author.CopyFrom(convert.author_message(author))
        return response

    @permitted
    async def AddAuthor(
        self, request: admin_pb2.AddAuthorRequest, context: Context
    ) -> admin_pb2.AddAuthorResponse:
        quota = request.bot_quota if request.HasField("bot_quota") else authors.DEFAULT_BOT_QUOTA
        author, token = await asyncio.to_thread(authors.add_author, self.db, request.name, quota)
        return admin_pb2.AddAuthorResponse(author=convert.author_message(author), token=token)

    @permitted
    async def ListAuthors(
        self, request: admin_pb2.ListAuthorsRequest, context: Context
    ) -> admin_pb2.ListAuthorsResponse:
        limit = validation.page_size(request.limit, default=bounds.PAGE.high)
        found = await asyncio.to_thread(authors.list_authors, self.db, limit + 1, request.page_token or None)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.ListAuthorsResponse(
            authors=[convert.author_message(author) for author in page],
            next_page_token=page[-1].name if more else "",
        )

    @permitted
    async def SetAuthorEnabled(
        self, request: admin_pb2.SetAuthorEnabledRequest, context: Context
    ) -> admin_pb2.AuthorInfo:
        author = await asyncio.to_thread(authors.set_author_enabled, self.db, request.name, request.enabled)
        return convert.author_message(author)

    @permitted
    async def SetAuthorQuota(
        self, request: admin_pb2.SetAuthorQuotaRequest, context: Context
    ) -> admin_pb2.AuthorInfo:
        author = await asyncio.to_thread(
            authors.set_bot_quota,
            self.db,
            request.name,
            None if request.keep_bot_quota else request.bot_quota,
            request.builds_at_once if request.HasField("builds_at_once") else None,
            request.submissions_per_hour if request.HasField("submissions_per_hour") else None,
            request.stored_bytes if request.HasField("stored_bytes") else None,
        )
        return convert.author_message(author)

    @permitted
    async def RotateAuthorToken(
        self, request: admin_pb2.RotateAuthorTokenRequest, context: Context
    ) -> admin_pb2.RotateAuthorTokenResponse:
        token = await asyncio.to_thread(authors.rotate_author_token, self.db, request.name)
        return admin_pb2.RotateAuthorTokenResponse(token=token)

    @permitted
    async def RotateMyToken(
        self, request: admin_pb2.RotateMyTokenRequest, context: Context
    ) -> admin_pb2.RotateAuthorTokenResponse:
        caller = CALLER.get()
        if caller.role is not Role.AUTHOR:
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                "only an author rotates their own token (the admin rotates an author's: author rotate)",
            )
        token = await asyncio.to_thread(authors.rotate_author_token, self.db, caller.name)
        return admin_pb2.RotateAuthorTokenResponse(token=token)

    @permitted
    async def ListNotices(
        self, request: admin_pb2.ListNoticesRequest, context: Context
    ) -> admin_pb2.ListNoticesResponse:
        caller = CALLER.get()
        limit = validation.page_size(request.limit)
        before = validation.page_token_id(request.page_token)
        mine = None if caller.is_admin else caller.author_id
        found = await asyncio.to_thread(notices.author_notices, self.db, mine, limit + 1, before)
        page = found[:limit]
        return admin_pb2.ListNoticesResponse(
            notices=[convert.notice_message(notice) for notice in page],
            next_page_token=str(page[-1].id) if len(found) > limit else "",
        )
