"""Who may call what: the one table of the Admin service's permissions.

A call's caller is told by the token in its ``authorization`` metadata (``Bearer TOKEN``):

- the **admin** (the server's admin token) may do everything;
- an **author** (an author's token) may act on their own bots and read what is public;
- **anyone** (no token at all) may read what is public, as on the website.

A token that is neither is refused (UNAUTHENTICATED), never taken for "anyone": a mistyped token
must say so. ``PERMISSIONS`` maps every RPC to a rule; ``docs/authors.md`` prints the same table,
and a test calls every RPC as every kind of caller against it.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Role(Enum):
    ANYONE = "anyone"
    AUTHOR = "author"
    ADMIN = "admin"


@dataclass(frozen=True)
class Caller:
    role: Role
    author_id: int | None = None
    name: str = ""
    """The author's name; "admin" or "anyone" for the others (for messages)."""

    @property
    def is_admin(self) -> bool:
        return self.role is Role.ADMIN

    def owns(self, owner_id: int | None) -> bool:
        """Whether this caller may act on a bot owned by ``owner_id`` (None: the admin's)."""
        return self.is_admin or (
            self.role is Role.AUTHOR and owner_id is not None and owner_id == self.author_id
        )

    def describe(self) -> str:
        return {Role.ADMIN: "the admin", Role.ANYONE: "a caller with no token"}.get(
            self.role, f"author {self.name}"
        )


ADMIN = Caller(Role.ADMIN, name="admin")
ANYONE = Caller(Role.ANYONE, name="anyone")


class Rule(Enum):
    """Who may make a call. The owner checks are made on the bots the request names."""

    PUBLIC = "anyone"
    """Every caller; what only the owner may see (commands, stderr, tokens) is left out for others."""
    AUTHOR = "any author"
    """An author (for themselves) or the admin."""
    OWNER = "the bot's owner"
    """The admin, or the author who owns every bot the request names."""
    OWN_SEAT = "an author with a bot of their own in it"
    """The admin, or an author one of whose bots takes a seat (the others: any active bots)."""
    ADMIN = "the admin"


@dataclass(frozen=True)
class Permission:
    rule: Rule
    bots: Callable[[Any], list[str]] | None = None
    """The bots the request names (for OWNER and OWN_SEAT)."""


def _named(request: Any) -> list[str]:
    return [request.name]


def _bot(request: Any) -> list[str]:
    return [request.bot]


def _seats(request: Any) -> list[str]:
    return [seat.bot for seat in request.seats]


def _duellists(request: Any) -> list[str]:
    """A duel's two bots, without their versions ("NAME@3")."""
    return [request.a.partition("@")[0], request.b.partition("@")[0]]


PERMISSIONS: dict[str, Permission] = {
    # games and matches
    "ListGames": Permission(Rule.PUBLIC),
    "RunMatch": Permission(Rule.OWN_SEAT, _seats),
    "GetMatch": Permission(Rule.PUBLIC),
    "ListMatches": Permission(Rule.PUBLIC),
    "Play": Permission(Rule.AUTHOR),
    # bots
    "AddBot": Permission(Rule.AUTHOR),
    "ListBots": Permission(Rule.PUBLIC),
    "GetBot": Permission(Rule.PUBLIC),
    "GetBotStats": Permission(Rule.PUBLIC),
    "SetBotEnabled": Permission(Rule.OWNER, _named),
    "RotateToken": Permission(Rule.OWNER, _named),
    "CheckBot": Permission(Rule.OWNER, _named),
    "ReinstateBot": Permission(Rule.ADMIN),
    "EditBot": Permission(Rule.ADMIN),
    "RemoveBot": Permission(Rule.OWNER, _named),
    # leagues and the ladder
    "CreateLeague": Permission(Rule.ADMIN),
    "RunLeague": Permission(Rule.ADMIN),
    "GetLeague": Permission(Rule.PUBLIC),
    "RerunLeague": Permission(Rule.ADMIN),
    "ListLeagues": Permission(Rule.PUBLIC),
    "PauseLeague": Permission(Rule.ADMIN),
    "ResumeLeague": Permission(Rule.ADMIN),
    "StopLeague": Permission(Rule.ADMIN),
    "JoinLeague": Permission(Rule.OWNER, _bot),
    "LeaveLeague": Permission(Rule.OWNER, _bot),
    "GetLeaguePairs": Permission(Rule.PUBLIC),
    "GetStandings": Permission(Rule.PUBLIC),
    "GetRatingHistory": Permission(Rule.PUBLIC),
    "SetLadderPolicy": Permission(Rule.ADMIN),
    # submissions and versions (the owner of a submitted name is checked by Submit itself: a new
    # name is the submitter's, within their quota)
    "Submit": Permission(Rule.AUTHOR),
    "WatchVersion": Permission(Rule.PUBLIC),
    "GetVersion": Permission(Rule.PUBLIC),
    "ListVersions": Permission(Rule.PUBLIC),
    "RollbackBot": Permission(Rule.OWNER, _bot),
    "GetBotLogs": Permission(Rule.OWNER, _bot),
    "ListNotices": Permission(Rule.AUTHOR),
    "ListTrialMatches": Permission(Rule.OWNER, _bot),
    "GetTrialMatch": Permission(Rule.OWNER, _bot),
    "Duel": Permission(Rule.OWN_SEAT, _duellists),
    # (no bot named: an author prunes their own bots only, the call itself sees to that)
    "PruneVersions": Permission(Rule.OWNER, _bot),
    # authors
    "WhoAmI": Permission(Rule.PUBLIC),
    "AddAuthor": Permission(Rule.ADMIN),
    "ListAuthors": Permission(Rule.ADMIN),
    "SetAuthorEnabled": Permission(Rule.ADMIN),
    "SetAuthorQuota": Permission(Rule.ADMIN),
    "RotateAuthorToken": Permission(Rule.ADMIN),
    "RotateMyToken": Permission(Rule.AUTHOR),
    # competitions
    "CreateCompetition": Permission(Rule.ADMIN),
    "EnterCompetition": Permission(Rule.OWNER, _bot),
    "LeaveCompetition": Permission(Rule.OWNER, _bot),
    "SelectCompetitionVersion": Permission(Rule.OWNER, _bot),
    "GetCompetition": Permission(Rule.PUBLIC),
    "ListCompetitions": Permission(Rule.PUBLIC),
    "StartFinals": Permission(Rule.ADMIN),
}


class Denied(Exception):
    """The caller may not make this call: ``unauthenticated`` when a token would help."""

    def __init__(self, text: str, unauthenticated: bool = False) -> None:
        super().__init__(text)
        self.unauthenticated = unauthenticated


def bearer(metadata: Any) -> str:
    """The token of a call's ``authorization: Bearer TOKEN`` metadata ("" when none)."""
    found = dict(metadata or ())
    return str(found.get("authorization", "")).removeprefix("Bearer ").strip()


def is_admin_token(offered: str, admin_token: str) -> bool:
    return hmac.compare_digest(offered.encode(), admin_token.encode())


def check_rule(method: str, caller: Caller) -> Permission:
    """The method's permission, after the checks that need no database: ``Denied`` when the
    caller's kind may never make this call. (OWNER and OWN_SEAT are checked on the bots after.)"""
    permission = PERMISSIONS[method]
    rule = permission.rule
    if rule is Rule.PUBLIC or caller.is_admin:
        return permission
    if caller.role is Role.ANYONE:
        raise Denied(
            f"{method} needs a token: log in as an author (kingmaker login) or give the admin token",
            unauthenticated=True,
        )
    if rule is Rule.ADMIN:
        raise Denied(f"only the admin may call {method}; you are {caller.describe()}")
    return permission


def check_bots(method: str, caller: Caller, permission: Permission, owners: dict[str, int | None]) -> None:
    """The owner checks, given the owner of each bot the request names that exists (an unknown
    name is left to the call itself, which says NOT_FOUND)."""
    if caller.is_admin or permission.rule not in (Rule.OWNER, Rule.OWN_SEAT):
        return
    if permission.rule is Rule.OWNER:
        others = [name for name, owner in owners.items() if not caller.owns(owner)]
        if others:
            raise Denied(f"{others[0]} is not your bot: only its owner or the admin may call {method}")
    elif not any(caller.owns(owner) for owner in owners.values()):
        raise Denied(f"{method}: at least one seat must be a bot of yours ({caller.describe()})")
