"""The Admin service the command line talks to, one part per area. Who may call what is
``permissions.PERMISSIONS``.

Each method translates: it checks the request, calls the ladder (in a worker thread, since the
database is blocking) or the match machinery, and turns the answer into messages. Ladder
errors become the matching gRPC status with the ladder's own sentence as details.
"""

from __future__ import annotations

import secrets

from kingmaker.server.services.admin.authors import AuthorRpcs
from kingmaker.server.services.admin.bots import BotRpcs
from kingmaker.server.services.admin.competitions import CompetitionRpcs
from kingmaker.server.services.admin.leagues import LeagueRpcs
from kingmaker.server.services.admin.matches import MatchRpcs
from kingmaker.server.services.admin.play import PlayRpcs
from kingmaker.server.services.admin.trial_matches import TrialMatchRpcs
from kingmaker.server.services.admin.versions import VersionRpcs
from kingmaker.v1 import admin_pb2_grpc

READ_ON_THE_LANE = frozenset({"ListGames", "ListBots", "GetBotStats", "GetStandings", "GetRatingHistory"})
"""Methods the admin lane runs on its own loop (``lane.AdminLane.add``): they read the database
and values fixed at start only (ListBots reads which bots are connected from the pool's set, copied
at once), so they need not wait for the main loop, busy with the bots' streams."""


class AdminService(
    MatchRpcs,
    PlayRpcs,
    BotRpcs,
    VersionRpcs,
    TrialMatchRpcs,
    LeagueRpcs,
    AuthorRpcs,
    CompetitionRpcs,
    admin_pb2_grpc.AdminServicer,
):
    """Every RPC of the Admin service (``proto/kingmaker/v1/admin.proto``)."""


def new_admin_token() -> str:
    return secrets.token_urlsafe(32)
