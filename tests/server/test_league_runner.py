"""The league runner under trouble: whatever fails, a league goes on or ends with a stated reason,
no match is left running, and nobody watching waits forever. The matches are played by a stand-in
that records a result at once, so these tests are about the runner, not the referee."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from sqlmodel import Session

from kingmaker.ladder import claims
from kingmaker.ladder.bots.bots import register_bot, set_enabled
from kingmaker.ladder.leagues import league_counts, leagues
from kingmaker.ladder.matches.matches import finish_match
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import FinishReport, MatchOutcome, MatchTicket, SeatOutcome
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.ladder.storage.models import League, MatchStatus
from kingmaker.server.loop_lag import LoopLag
from kingmaker.server.scheduling import scheduler
from kingmaker.server.scheduling.scheduler import LeagueRunner, Progress
from kingmaker.server.seats.admission import Admission
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster
from kingmaker.server.seats.sessions import SessionPool


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    """The league "weekly" of three bots, in SQLite and in PostgreSQL."""
    database = open_database(database_url)
    for name in ("a", "b", "c"):
        register_bot(database, name, ["kingdoms"])
    leagues.create_league(database, "weekly", "kingdoms", ["a", "b", "c"], rounds=2, seed=1)
    yield database
    database.close()


def record(db: Database, ticket: MatchTicket) -> FinishReport:
    seats = tuple(
        SeatOutcome(seat, bot, score=seat, rank=seat + 1) for seat, bot in enumerate(ticket.bot_ids)
    )
    return finish_match(db, MatchOutcome(ticket.match_id, seats, "test"))


def play_with(monkeypatch: pytest.MonkeyPatch, play: Callable[[Database, MatchTicket], Any]) -> None:
    async def stand_in(
        db: Database,
        roster: Roster,
        ticket: MatchTicket,
        control: TimeControl,
        played: Callable[[], Awaitable[None]] | None = None,
        entrants: list[Entrant] | None = None,
        store: object = None,
    ) -> FinishReport:
        assert entrants is not None and [e.bot_id for e in entrants] == list(ticket.bot_ids)
        await asyncio.sleep(0.01)
        if played is not None:
            await played()
        return play(db, ticket)  # type: ignore[no-any-return]

    monkeypatch.setattr(scheduler, "play_ticket", stand_in)


def watch_to_the_end(db: Database, concurrency: int = 2) -> list[Progress]:
    async def follow() -> list[Progress]:
        runner = LeagueRunner(db, Roster(SessionPool(), "unused"), TimeControl())
        seen = [progress async for progress in runner.watch("weekly", concurrency)]
        await runner.stop()
        return seen

    # Before these fixes a failing league task left its watchers waiting forever.
    return asyncio.run(asyncio.wait_for(follow(), timeout=30))


def statuses(db: Database) -> dict[str, int]:
    return league_counts.league_progress(db, leagues.get_league(db, "weekly").id)


def test_an_error_in_the_league_task_ends_it_with_the_reason_told_and_stored(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_with(monkeypatch, record)
    real_claim = claims.claim_in
    calls = 0

    def failing_claim(
        session: Session, league: League, limit: int, busy: frozenset[int], absent: frozenset[int]
    ) -> list[MatchTicket]:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("the disk is full")
        return real_claim(session, league, limit, busy, absent)

    monkeypatch.setattr(claims, "claim_in", failing_claim)
    seen = watch_to_the_end(db)
    assert seen[-1].done
    assert "the disk is full" in seen[-1].reason
    assert "the disk is full" in (leagues.get_league(db, "weekly").status_reason or "")
    # The match still in play when it failed was let finish and recorded; nothing is left
    # running; the rest waits for the next run.
    assert statuses(db)[MatchStatus.RUNNING] == 0
    assert statuses(db)[MatchStatus.FINISHED] == 2
    monkeypatch.setattr(claims, "claim_in", real_claim)
    assert watch_to_the_end(db)[-1].reason == "finished"
    assert statuses(db)[MatchStatus.FINISHED] == 6


def test_a_match_that_fails_to_play_is_voided_and_replayed_and_the_league_goes_on(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed: list[int] = []

    def flaky(database: Database, ticket: MatchTicket) -> FinishReport:
        if not failed:
            failed.append(ticket.match_id)
            raise RuntimeError("the engine tripped")
        return record(database, ticket)

    play_with(monkeypatch, flaky)
    seen = watch_to_the_end(db)
    assert (seen[-1].done, seen[-1].reason) == (True, "finished")
    counts = statuses(db)
    assert (counts[MatchStatus.FINISHED], counts[MatchStatus.VOID], counts[MatchStatus.RUNNING]) == (6, 1, 0)
    assert leagues.get_league(db, "weekly").finished


def test_a_bot_disabled_mid_league_cancels_its_matches_and_the_others_play_on(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disabling(database: Database, ticket: MatchTicket) -> FinishReport:
        set_enabled(database, "c", False)  # as an admin would, while matches are being claimed
        return record(database, ticket)

    play_with(monkeypatch, disabling)
    seen = watch_to_the_end(db, concurrency=1)
    assert seen[-1].reason == "finished"
    counts = statuses(db)
    assert counts[MatchStatus.RUNNING] == counts[MatchStatus.SCHEDULED] == 0
    assert counts[MatchStatus.CANCELLED] >= 1
    assert counts[MatchStatus.FINISHED] + counts[MatchStatus.CANCELLED] == 6


class SteerableLag(LoopLag):
    """A lag meter whose recent lag the test sets."""

    def __init__(self) -> None:
        super().__init__()
        self.now_ms = 0.0

    def recent_ms(self, percentile: float = 0.99) -> float:
        return self.now_ms


def test_admission_control_holds_matches_back_while_the_loop_lags(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    play_with(monkeypatch, record)
    lag = SteerableLag()
    lag.now_ms = 500.0  # far behind: start nothing more than the one a league may always have
    admission = Admission(lag)

    async def follow() -> tuple[int, int, list[Progress]]:
        runner = LeagueRunner(db, Roster(SessionPool(), "unused"), TimeControl(), admission=admission)
        watching = asyncio.ensure_future(_collect(runner.watch("weekly", 4)))
        league_id = leagues.get_league(db, "weekly").id
        in_play = held = 0
        held_for = held_total = 0.0
        for _ in range(40):  # watch it for a while under lag
            await asyncio.sleep(0.005)
            now_in_play, now_held = runner.live(league_id)
            in_play, held = max(in_play, now_in_play), max(held, now_held)
            state = runner.state(league_id)
            assert state.held_total_s >= state.held_for_s
            held_for, held_total = max(held_for, state.held_for_s), max(held_total, state.held_total_s)
        assert 0 < held_for <= held_total, "how long matches were held back, now and in all"
        lag.now_ms = 0.0  # the loop caught up
        seen = await asyncio.wait_for(watching, 30)
        await runner.stop()
        return in_play, held, seen

    in_play, held, seen = asyncio.run(follow())
    assert in_play <= 1 and held == 3, "one match at a time while the loop lags; three held back"
    assert seen[-1].reason == "finished"
    assert statuses(db)[MatchStatus.FINISHED] == 6
    assert admission.held_back == 0


def test_the_lag_that_holds_matches_back_scales_with_the_decision_limit() -> None:
    lag = SteerableLag()
    lag.now_ms = 26.0  # what held a league to one match at a time for a whole run under 2 s
    assert Admission(lag, decision_ms=2000).limit_ms == 100.0
    assert Admission(lag, decision_ms=2000).allowed(4, league_in_play=1) == 4
    assert Admission(lag, decision_ms=100).limit_ms == 20.0  # never below the floor
    assert Admission(lag, decision_ms=100).allowed(4, league_in_play=1) == 0
    assert Admission(lag, decision_ms=100).allowed(4, league_in_play=0) == 1, "no league starves"


async def _collect(progress: object) -> list[Progress]:
    return [item async for item in progress]  # type: ignore[attr-defined]


def test_the_next_match_starts_before_the_last_result_is_stored(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One match at a time: the second match must start while the first one's result is still
    being written (the write waits for it), not after. Before, every match waited for the last
    one's write and then for its own claim, queued behind that write."""
    from kingmaker.server.refereeing import result_writer
    from kingmaker.server.refereeing.referee import MatchReport, SeatReport

    started: list[str] = []
    second_started = threading.Event()

    class Instant:
        """An executor whose matches end at once, every seat finished."""

        async def play(self, game: str, entrants: Any, seed: int, options: Any, control: Any, match_id: str):  # type: ignore[no-untyped-def]
            started.append(match_id)
            if len(started) == 2:
                second_started.set()
            seats = tuple(
                SeatReport(
                    seat,
                    entrant.name,
                    score=seat,
                    rank=seat + 1,
                    strikes=0,
                    end_reason=EndReason.FINISHED,
                    detail="",
                )
                for seat, entrant in enumerate(entrants)
            )
            return MatchReport(
                match_id, game, "test", seed, {}, seats, (), tuple(() for _ in seats), 0.0, 0.0, None
            )

        async def retire(self, bot_ids: set[int]) -> None:
            pass

        async def close(self) -> None:
            pass

    real_finish = result_writer.finish_matches
    waited: list[bool] = []
    first = threading.Lock()  # results are written from several threads at once

    def slow_finish(database: Database, outcomes: list[MatchOutcome]) -> list[FinishReport | Exception]:
        if first.acquire(blocking=False):  # the first result: held until the next match starts
            waited.append(second_started.wait(timeout=10))
        return real_finish(database, outcomes)

    # The league's results go through its group-commit writer.
    monkeypatch.setattr(result_writer, "finish_matches", slow_finish)

    async def follow() -> list[Progress]:
        roster = Roster(SessionPool(), "unused")
        runner = LeagueRunner(db, roster, TimeControl(), executor=Instant())
        seen = [progress async for progress in runner.watch("weekly", 1)]
        await runner.stop()
        return seen

    seen = asyncio.run(asyncio.wait_for(follow(), timeout=60))
    assert waited == [True], "the second match waited for the first one's result to be stored"
    assert (seen[-1].done, seen[-1].reason) == (True, "finished")
    assert statuses(db)[MatchStatus.FINISHED] == 6
