"""A match before it is played: its game and options checked (``check_game_setup``), and a
one-off match outside any league written (``create_match``); a league's matches are written by
``matches.schedule_match`` inside the league's own transaction."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence

from kingmaker.games.api import OptionsError, OptionValue
from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.ladder.bots.entrants import active_bots_for
from kingmaker.ladder.errors import InvalidRequestError
from kingmaker.ladder.matches.matches import schedule_match, ticket
from kingmaker.ladder.pairing.schedules.base import SEED_BITS
from kingmaker.ladder.records import MatchTicket
from kingmaker.ladder.storage.db import Database


def check_game_setup(
    game: str, players: int, options: Mapping[str, OptionValue] | None
) -> dict[str, OptionValue]:
    """The game's options with defaults filled in, or ``InvalidRequestError`` saying what is wrong."""
    try:
        engine = get_game(game)
        if not engine.spec.min_players <= players <= engine.spec.max_players:
            spec = engine.spec
            raise InvalidRequestError(
                f"{game} is for {spec.min_players} to {spec.max_players} players, not {players}"
            )
        return engine.resolve_options(options or {})
    except (UnknownGameError, OptionsError) as error:
        raise InvalidRequestError(str(error)) from None


def create_match(
    db: Database,
    game: str,
    bot_names: Sequence[str],
    seed: int | None = None,
    options: Mapping[str, OptionValue] | None = None,
    unrated: str | None = None,
    with_people: bool = False,
) -> MatchTicket:
    """A one-off match outside any league (seat i is ``bot_names[i]``); ``unrated``: recorded but
    rating nobody on the ladder, for the reason given (a sentence); ``with_people``: rated in the
    separate ratings of the matches with people instead (``Match.rated_with_people``)."""

    resolved = check_game_setup(game, len(bot_names), options)
    if seed is None:
        seed = secrets.randbits(SEED_BITS)
    with db.transaction() as session:
        bots = active_bots_for(session, game, bot_names)
        match = schedule_match(
            session, game=game, seed=seed, options=resolved, bot_ids=[bot.id or 0 for bot in bots]
        )
        if unrated is not None:
            match.rated, match.status_reason = False, unrated
            match.rated_with_people = with_people
            session.add(match)
        return ticket(session, match)
