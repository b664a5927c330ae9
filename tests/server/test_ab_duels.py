"""The games of an A/B duel side by side, and what the duel says in plain words.

The referee is replaced by a stand-in that logs each match's start and end and lets the event
loop run between them, so the test sees the order matches were in play in: with room, both
games' matches interleave; with none (the loop lagging), one seed plays at a time; the first
game that rejects the version stops the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from kingmaker.ladder.outcomes import EndReason
from kingmaker.sdk.sprt import Tally, Verdict
from kingmaker.server.new_versions import ab_gate
from kingmaker.server.new_versions.ab_duels import duel_games
from kingmaker.server.new_versions.ab_gate import AB_TEST, GameResult, seconds_left, seeds_left
from kingmaker.server.scheduling import duels
from kingmaker.server.scheduling.duel_room import SeedRoom
from kingmaker.server.seats.admission import Admission
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant

NEW = Entrant("annbot", bot_id=1, version=3)
OLD = Entrant("annbot", bot_id=1, version=2)


class Referee:
    """Plays no game: by game, the new version always places first ("wins"), always last
    ("loses"), or first on even seeds and last on odd ones ("close": seeds score 1 and 0 in
    turn, which takes the test many seeds to decide)."""

    def __init__(self, outcomes: dict[str, str]) -> None:
        self.outcomes = outcomes
        self.log: list[tuple[str, str]] = []
        self.in_play = 0
        self.most_in_play = 0

    async def play(
        self, roster: Any, game: str, entrants: Sequence[Entrant], seed: int, *rest: Any
    ) -> SimpleNamespace:
        self.log.append((game, "start"))
        self.in_play += 1
        self.most_in_play = max(self.most_in_play, self.in_play)
        try:
            for _ in range(3):  # a match takes a few turns of the loop
                await asyncio.sleep(0)
        except asyncio.CancelledError:
            self.log.append((game, "stopped"))
            raise
        finally:
            self.in_play -= 1
        self.log.append((game, "end"))
        outcome = self.outcomes[game]
        wins = outcome == "wins" or (outcome == "close" and seed % 2 == 0)
        first = entrants.index(NEW if wins else OLD)
        seats = [
            SimpleNamespace(bot=entrant.name, rank=1 if seat == first else 2, end_reason=EndReason.FINISHED)
            for seat, entrant in enumerate(entrants)
        ]
        return SimpleNamespace(seats=seats)


class Lagging(Admission):
    """A loop past its lag limit: a new seed waits while another is in play."""

    def __init__(self) -> None:
        self.held = 0

    def allowed(self, free: int, league_in_play: int) -> int:
        if league_in_play:
            self.held += 1
            return 0
        return free


def run(referee: Referee, games: list[str], monkeypatch: pytest.MonkeyPatch, room: SeedRoom) -> tuple[
    GameResult | None, list[dict[str, Any]]
]:  # fmt: skip
    monkeypatch.setattr(duels, "play_match", referee.play)
    kept: list[dict[str, Any]] = []

    async def report(progress: dict[str, Any]) -> None:
        kept.append(progress)

    failed = asyncio.run(duel_games(None, "annbot", NEW, OLD, 2, games, TimeControl(), room, report))  # type: ignore[arg-type]
    return failed, kept


def test_a_two_game_duel_plays_both_games_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    referee = Referee({"kingdoms": "wins", "kingsburg": "wins"})
    failed, kept = run(referee, ["kingdoms", "kingsburg"], monkeypatch, SeedRoom())
    assert failed is None, "the new version wins every match: accepted in both games"
    # Kingsburg's first match starts before Kingdoms' first ends, and both run to their end.
    assert referee.log.index(("kingsburg", "start")) < referee.log.index(("kingdoms", "end"))
    assert referee.most_in_play == 4  # two seat orders a seed, in each game
    last = {progress["game"]: progress for progress in kept if progress["done"]}
    assert last["kingdoms"]["words"].startswith("not weaker than v2 in Reiner Knizia's Kingdoms: ")
    assert last["kingsburg"]["words"].startswith("not weaker than v2 in Kingsburg: ")
    running = next(progress for progress in kept if progress["game"] == "kingsburg")
    assert running["words"].startswith("still undecided in Kingsburg: 2 of at most 800 matches against v2")


def test_without_room_one_seed_plays_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    referee, lagging = Referee({"kingdoms": "wins", "kingsburg": "wins"}), Lagging()
    failed, _ = run(referee, ["kingdoms", "kingsburg"], monkeypatch, SeedRoom(lagging))
    assert failed is None
    assert referee.most_in_play == 2 and lagging.held > 0  # one seed (two matches) at a time
    games = {game for game, _ in referee.log}
    assert games == {"kingdoms", "kingsburg"}, "both games still play to their verdict"


def test_the_first_game_that_rejects_the_version_stops_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    referee = Referee({"kingdoms": "close", "kingsburg": "loses"})
    failed, kept = run(referee, ["kingdoms", "kingsburg"], monkeypatch, SeedRoom())
    assert failed is not None and failed.game == "kingsburg" and failed.verdict is Verdict.H0
    assert failed.words().startswith("weaker than v2 in Kingsburg: ")
    # Losing every seed decides long before close seeds do: Kingdoms was still undecided.
    assert not any(progress["done"] for progress in kept if progress["game"] == "kingdoms")
    assert referee.log[-2:] == [("kingdoms", "stopped")] * 2, "Kingdoms' seed in play was stopped"
    assert referee.in_play == 0, "and waited for: none left running"


def test_a_verdict_in_plain_words() -> None:
    def result(verdict: Verdict, at_cap: bool = False, stopped: str = "") -> str:
        return GameResult("annbot", 3, 2, "kings_road", 212, -3.4, 14.2, verdict, at_cap, stopped).words()

    assert result(Verdict.H1) == "not weaker than v2 in King's Road: 212 matches, -3 ± 14 Elo"
    assert result(Verdict.H0) == "weaker than v2 in King's Road: 212 matches, -3 ± 14 Elo"
    assert result(Verdict.H1, at_cap=True) == (
        "not weaker than v2 in King's Road (at the 800-match cap, by the LLR's sign): "
        "212 matches, -3 ± 14 Elo"
    )
    assert result(Verdict.CONTINUE, stopped="stopped: annbot: cannot start") == (
        "no verdict in King's Road, stopped: annbot: cannot start: 212 matches, -3 ± 14 Elo"
    )
    assert ab_gate.undecided_words("kingdoms", 2, 40, 5.0, float("inf"), 390.0) == (
        "still undecided in Reiner Knizia's Kingdoms: 40 of at most 800 matches against v2, +5 ± inf Elo, "
        "about 6 min left"
    )


def test_the_time_left_follows_the_llrs_pace_and_the_rate_of_matches() -> None:
    units = Tally.of([0.5, 0.75, 0.5, 0.5])  # heading for "not weaker"
    llr = AB_TEST.llr(units)
    assert 0 < llr < AB_TEST.upper
    expected = -(-(AB_TEST.upper - llr) // (llr / 4))  # seeds at this pace to the upper bound
    assert seeds_left(units, 400) == expected
    assert seeds_left(units, 5) == 1, "never past the cap"
    # 8 matches in 40 s: 5 s a match, two matches a seed.
    assert seconds_left(units, 8, 40.0, 2, 400) == pytest.approx(expected * 2 * 5.0)
    assert seconds_left(Tally(), 0, 0.0, 2, 400) is None, "no rate before a match"
    losing = Tally.of([0.25, 0.0, 0.25])
    assert AB_TEST.llr(losing) < 0 and seeds_left(losing, 400) < 400
    assert ab_gate.time_left(30) == "under a minute left" and ab_gate.time_left(7200) == "about 2.0 h left"
