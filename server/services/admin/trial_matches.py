"""A version's trial matches (its validation's and its A/B duel's): listed and read back for
its owner and the admin only (``permissions``: the bot's owner), to replay like any match.
"""

from __future__ import annotations

import asyncio

from kingmaker.ladder.matches.trial_matches import list_trials, trial_match
from kingmaker.server.services import convert, validation
from kingmaker.server.services.admin.base import AdminBase, Context, permitted
from kingmaker.v1 import admin_pb2

TRIALS_LISTED = 100
"""A listing's default length: a four-game duel plays up to 3,200 matches."""


class TrialMatchRpcs(AdminBase):
    @permitted
    async def ListTrialMatches(
        self, request: admin_pb2.ListTrialMatchesRequest, context: Context
    ) -> admin_pb2.ListTrialMatchesResponse:
        limit = validation.page_size(request.limit, default=TRIALS_LISTED)
        before = validation.page_token_id(request.page_token)
        found = await asyncio.to_thread(
            list_trials, self.db, request.bot, request.version or None, limit + 1, before
        )
        page = found[:limit]  # (one more was asked for: whether an older page exists)
        return admin_pb2.ListTrialMatchesResponse(
            matches=[convert.trial_info(trial) for trial in page],
            next_page_token=str(page[-1].id) if len(found) > limit else "",
        )

    @permitted
    async def GetTrialMatch(
        self, request: admin_pb2.GetTrialMatchRequest, context: Context
    ) -> admin_pb2.MatchRecord:
        trial = await asyncio.to_thread(trial_match, self.db, request.bot, request.trial_id)
        return convert.trial_record(trial)
