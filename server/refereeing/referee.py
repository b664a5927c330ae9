"""The referee: runs one match between connected bots, trusting none of them.

For every decision it asks each acting seat at once (so simultaneous choices stay secret), with
that seat's own observation, its legal actions and its clock; it checks every reply, applies
the joint action and records it. The policy for faults:

- a late, illegal or malformed reply earns a strike, an error on the bot's stream, and the
  seat's default action (the fallback policy's choice) for that decision;
- at ``max_strikes`` strikes, or at once when the bot disconnects or its process dies, the
  seat forfeits: the fallback policy plays it to the end so the other seats' game finishes,
  and it ranks last whatever its score;
- the fallback policy is a uniformly random legal action drawn from an RNG seeded by the match
  seed, so a match with faults still replays from its log.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from kingmaker.games import serial
from kingmaker.games.api import Action, Game, GameState, OptionValue, Result, Seat
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import PackedLog
from kingmaker.ladder.step_output import StepOutput
from kingmaker.sdk.codec import CodecError, GameCodec, codec_for, digest, options_to_proto
from kingmaker.server.jail.bot_cpu import ProcessTreeClock
from kingmaker.server.live import LiveFrame, LiveHub
from kingmaker.server.refereeing.requests import requests_for
from kingmaker.server.seats.deadlines import SeatClock, TimeControl
from kingmaker.server.seats.sessions import Answer, BotSession
from kingmaker.v1 import arena_pb2, common_pb2

# What a seat forfeits as when its stream was closed for a fault, by the error the bot was sent
# (FLOODING and any other: PROTOCOL_ERROR).
_FAULT_REASON = {arena_pb2.ERROR_CODE_MALFORMED_REPLY: EndReason.MALFORMED_REPLY}
# What made a seat forfeit, by the kind of fault that reached the strike limit.
_FORFEIT_REASON = {
    "late": EndReason.TIMEOUT,
    "illegal": EndReason.ILLEGAL_ACTION,
    "malformed": EndReason.MALFORMED_REPLY,
    "unknown": EndReason.PROTOCOL_ERROR,
}
_STRIKE_CODE = {
    "late": arena_pb2.ERROR_CODE_LATE_REPLY,
    "illegal": arena_pb2.ERROR_CODE_ILLEGAL_ACTION,
    "malformed": arena_pb2.ERROR_CODE_MALFORMED_REPLY,
    "unknown": arena_pb2.ERROR_CODE_UNKNOWN_REQUEST,
}
MALFORMED_TEXT_CHARS = 500
"""The most of a bridge's account of a malformed reply (``ActionReply.malformed``) kept."""
FLUSH_HINT = (
    "nothing at all came from the bot meanwhile: if it wrote a reply, the reply never left it "
    "(a program must flush its output after each reply)"
)


@dataclass
class SeatState:
    """The referee's book on one seat."""

    bot: str
    session: BotSession | None
    clock: SeatClock
    exit: Callable[[], Awaitable[str | None]] | None = None
    """Asks how the bot's process ended, if it has ("exited with code 3", "was killed by SIGSEGV"):
    it tells a crash from a disconnection, and says which crash."""
    cpu: ProcessTreeClock | None = None
    """The bot's processes as the server can see them (managed bots): the CPU time they used and
    how long they waited for a CPU."""
    stderr_at: Callable[[], int] | None = None
    """How many bytes the bot has written on stderr so far (managed bots): marks each step."""
    step_marks: list[tuple[int, int, int]] = field(default_factory=list)
    """Per request: (joint decision, stderr size when it was sent, when its reply came)."""
    strikes: int = 0
    strike_log: list[Strike] = field(default_factory=list)
    end_reason: EndReason = EndReason.FINISHED
    detail: str = ""
    digests: list[str] = field(default_factory=list)
    """``codec.digest`` of every observation the seat was shown, in order."""

    @property
    def forfeited(self) -> bool:
        return self.end_reason is not EndReason.FINISHED


@dataclass(frozen=True)
class Strike:
    """A fault the referee held against a seat, for its bot's author."""

    request_id: int
    kind: str
    """"late", "illegal", "malformed" or "unknown" (its reply named a request that is not open)."""
    detail: str


@dataclass(frozen=True)
class Decision:
    seat: Seat
    action: Action
    source: str
    """"bot", "default" (after a fault) or "fallback" (for a forfeited seat)."""
    elapsed_ms: float | None = None
    """The time the seat was charged for this decision (None when no bot was asked)."""


@dataclass(frozen=True)
class SeatReport:
    seat: Seat
    bot: str
    score: int
    rank: int
    strikes: int
    end_reason: EndReason
    detail: str
    stderr_tail: str = ""
    """The end of the bot's stderr, kept when its seat ended by a fault."""
    strike_log: tuple[Strike, ...] = ()
    """Each strike, in order."""
    stderr: str = ""
    """What the bot wrote on stderr during this match (its end, when longer than kept)."""
    stderr_bytes: int = 0
    """How much it wrote during the match in all."""
    exit: str = ""
    """How its process ended during the match ("exited with code 1", "killed by SIGSEGV")."""
    step_output: tuple[StepOutput, ...] = ()
    """What it printed on stderr while answering each request (bounded: ``step_output``)."""


@dataclass(frozen=True)
class MatchReport:
    """Everything a finished match leaves behind: enough to store, rate and replay it."""

    match_id: str
    game: str
    edition: str
    seed: int
    options: Mapping[str, OptionValue]
    seats: tuple[SeatReport, ...]
    decisions: tuple[tuple[Decision, ...], ...]
    observation_digests: tuple[tuple[str, ...], ...]
    started_at: float
    finished_at: float
    result: Result | None
    """The game's own result, before faulty seats were moved to last place; None if aborted."""
    think_ms: tuple[tuple[float, ...], ...] = ()
    """Per seat, how long its bot took over each request (ms, the server's own lag left out)."""
    packed_log: PackedLog | None = None
    """The log packed where the match was refereed, when that was a worker (``report_log``)."""


class Referee:
    def __init__(
        self,
        match_id: str,
        game: Game,
        seed: int,
        options: Mapping[str, OptionValue],
        seats: list[SeatState],
        control: TimeControl,
        live: LiveHub | None = None,
    ) -> None:
        self.match_id = match_id
        self.game = game
        self.seed = seed
        self.options = game.resolve_options(options)
        self.seats = seats
        self.control = control
        self.codec: GameCodec = codec_for(game.spec.name)
        self.requests = requests_for(game.spec.name)
        self.fallback = random.Random(seed ^ 0x5EED)
        self.decisions: list[tuple[Decision, ...]] = []
        self.live = live if game.spectate is not None else None
        """Where spectators' frames go; None when nobody can watch (or the game has no spectator view)."""
        for book in seats:
            if book.session is None and not book.forfeited:
                book.end_reason = EndReason.NEVER_CONNECTED
                book.detail = book.detail or "the bot never connected"

    async def run(self) -> MatchReport:
        started = time.time()
        state = self.game.new(len(self.seats), self.seed, self.options)
        live = self.live
        if live is not None:
            live.attach(self.match_id, lambda: self._frame(state, ()))
        # A person's seat follows the moves (``_send_updates``); a bot's never does.
        followed = any(book.session is not None and book.session.follows_moves for book in self.seats)
        try:
            self._send_starts()
            while not state.is_over():
                if len(self.decisions) >= self.game.spec.max_decisions:
                    raise RuntimeError(f"{self.game.spec.name} ran past max_decisions: an engine bug")
                acting = state.to_act()
                if len(acting) == 1:  # most decisions: no task to make and schedule
                    chosen = [await self._decide(state, acting[0])]
                else:  # simultaneous: every acting seat is asked at the same moment
                    chosen = await asyncio.gather(*(self._decide(state, seat) for seat in acting))
                state.apply({decision.seat: decision.action for decision in chosen})
                self.decisions.append(tuple(chosen))
                if followed:
                    self._send_updates(state, chosen)
                if live is not None and self.match_id in live.watching:  # all it costs unwatched
                    live.offer(self.match_id, functools.partial(self._frame, state, chosen))
        finally:
            if live is not None:
                live.detach(self.match_id)
        report = self._report(state.result(), started)
        self._send_ends(report)
        return report

    def _frame(self, state: GameState, chosen: Sequence[Decision]) -> LiveFrame:
        """The match as a spectator sees it now (only built for a match someone watches, at the
        live hub's pace: ``state`` as it is when the hub asks, ``chosen`` the last decision)."""
        assert self.game.spectate is not None
        return LiveFrame(
            match_id=self.match_id,
            game=self.game.spec.name,
            step=len(self.decisions),
            to_act=tuple(state.to_act()),
            acted=tuple(decision.seat for decision in chosen),
            view=serial.to_data(self.game.spectate(state)),
            over=state.is_over(),
        )

    async def _decide(self, state: GameState, seat: Seat) -> Decision:
        book = self.seats[seat]
        legal = state.legal_actions(seat)
        if book.forfeited or book.session is None:
            return Decision(seat, self.fallback.choice(legal), "fallback")
        observation = self.codec.observation_bytes(state.observation(seat))
        book.digests.append(digest(observation))
        message = self.requests.message(
            self.match_id, seat, observation, legal, book.clock.control.decision_ms, book.clock.bank_ms
        )
        request = message.action_request
        cpu = book.cpu
        cpu_before = 0.0
        if cpu is not None:
            cpu_before = cpu.seconds()
            cpu.note_request()
        stderr_at = book.stderr_at
        stderr_before = stderr_at() if stderr_at is not None else 0
        answer = await book.session.ask(request, book.clock.wait_seconds(), cpu, message)
        if stderr_at is not None:
            book.step_marks.append((len(self.decisions), stderr_before, stderr_at()))
        cpu_ms = (cpu.seconds() - cpu_before) * 1000 if cpu is not None else None
        action = await self._judge(book, request.request_id, answer, legal, cpu_ms)
        spent = round(max(0.0, answer.elapsed_ms - answer.server_lag_ms), 1)
        if action is None:
            source = "fallback" if book.forfeited else "default"
            return Decision(seat, self.fallback.choice(legal), source, spent)
        return Decision(seat, action, "bot", spent)

    async def _judge(
        self,
        book: SeatState,
        request_id: int,
        answer: Answer,
        legal: tuple[Action, ...],
        cpu_ms: float | None = None,
    ) -> Action | None:
        """The bot's action if its answer stands; otherwise strike or forfeit and return None."""
        if answer.reply is None:
            if answer.closed:
                session = book.session
                if session is not None and session.ended_by_server:
                    self._forfeit(book, EndReason.ABORTED, session.ended_by_server)
                elif session is not None and session.fault:
                    reason = _FAULT_REASON.get(session.fault_code, EndReason.PROTOCOL_ERROR)
                    self._forfeit(book, reason, session.fault)
                elif book.exit is not None and (how := await book.exit()) is not None:
                    self._forfeit(book, EndReason.CRASHED, f"the bot's process {how}")
                else:
                    self._forfeit(book, EndReason.DISCONNECTED, "the stream closed")
                return None
            bank = book.clock.bank_ms  # as the bot was told it (expiring spends it)
            book.clock.expire(answer.elapsed_ms - answer.server_lag_ms - answer.waited_ms)
            if answer.stray:
                text = (
                    f"no reply to request {request_id} came; the bot's reply named {answer.stray}, "
                    "which is not open on this stream (copy `match_id` and `request_id` from the request)"
                )
                self._strike(book, "unknown", request_id, text)
                return None
            text = f"no reply within {self._limit(book, bank)} (the server waited {answer.elapsed_ms:.0f} ms)"
            self._strike(book, "late", request_id, text if answer.heard else f"{text}; {FLUSH_HINT}")
            return None
        # Neither the server's lag nor the machine's keeping the bot from a CPU is the bot's time.
        own_ms = answer.elapsed_ms - answer.server_lag_ms - answer.waited_ms
        bank = book.clock.bank_ms  # as the bot was told it (a late reply's charge spends it)
        if not book.clock.charge(own_ms, cpu_ms):
            used = f"{own_ms:.0f} ms" + (f", {cpu_ms:.0f} ms of CPU" if cpu_ms is not None else "")
            limit = self._limit(book, bank)
            self._strike(book, "late", request_id, f"the reply took {used}, over {limit}")
            return None
        reply = answer.reply
        choice = reply.WhichOneof("choice")
        if choice == "legal_action_index":
            if reply.legal_action_index < len(legal):
                return legal[reply.legal_action_index]
            text = f"index {reply.legal_action_index} is outside the {len(legal)} legal actions"
            self._strike(book, "malformed", request_id, text)
            return None
        if choice == "action":
            try:
                action = self.codec.unpack_action(reply.action)
            except CodecError as error:
                self._strike(book, "malformed", request_id, str(error))
                return None
            if action in legal:
                return action
            self._strike(book, "illegal", request_id, f"{action!r} is not a legal action now")
            return None
        if choice == "malformed":  # the bridge's account of a line that was no reply
            self._strike(book, "malformed", request_id, reply.malformed[:MALFORMED_TEXT_CHARS])
            return None
        self._strike(book, "malformed", request_id, "the reply holds neither an index nor an action")
        return None

    def _limit(self, book: SeatState, bank: int) -> str:
        """The decision's limit as the bot was told it (``bank``: its bank then), for a late
        strike's text; written only for a strike, not for every reply."""
        charged = "of CPU time" if book.clock.charges_cpu else "by the wall clock"
        extra = f" plus its {bank} ms bank" if bank else ""
        return f"the decision's {book.clock.control.decision_ms} ms limit{extra} {charged}"

    def _strike(self, book: SeatState, kind: str, request_id: int, text: str) -> None:
        book.strikes += 1
        book.strike_log.append(Strike(request_id, kind, text))
        code = _STRIKE_CODE[kind]
        strikes = f"strike {book.strikes} of {book.clock.control.max_strikes}"
        if book.session is not None:
            book.session.error(
                code, f"{text}; a default action was played ({strikes})", self.match_id, request_id
            )
        if book.strikes >= book.clock.control.max_strikes:
            self._forfeit(
                book, _FORFEIT_REASON[kind], f"forfeited after {book.strikes} strikes; last: {text}"
            )

    def _forfeit(self, book: SeatState, reason: EndReason, text: str) -> None:
        if book.forfeited:
            return
        book.end_reason = reason
        book.detail = text
        if book.session is not None:
            book.session.error(arena_pb2.ERROR_CODE_FORFEITED, text, self.match_id)

    def _send_starts(self) -> None:
        names = [book.bot for book in self.seats]
        for seat, book in enumerate(self.seats):
            if book.session is None:
                continue
            own = book.clock.control  # the match's, or a person's own (``Entrant.control``)
            control = common_pb2.TimeControl(
                decision_ms=own.decision_ms,
                bank_ms=own.bank_ms,
                increment_ms=own.increment_ms,
                max_strikes=own.max_strikes,
            )
            book.session.matches.add(self.match_id)
            start = arena_pb2.MatchStart(
                match_id=self.match_id,
                game=self.game.spec.name,
                edition=self.game.spec.edition,
                seat=seat,
                players=len(self.seats),
                options=options_to_proto(self.options),
                seat_bots=names,
                time_control=control,
            )
            book.session.send(arena_pb2.ServerMessage(match_start=start))

    def _send_updates(self, state: GameState, chosen: Sequence[Decision]) -> None:
        """Each person's seat its own observation now (``BotSession.follows_moves``; no bot's)."""
        for seat, book in enumerate(self.seats):
            session = book.session
            if session is None or not session.follows_moves or book.forfeited:
                continue
            update = arena_pb2.SeatUpdate(
                match_id=self.match_id,
                seat=seat,
                step=len(self.decisions),
                acted=[decision.seat for decision in chosen],
            )
            update.observation.CopyFrom(self.codec.pack_observation(state.observation(seat)))
            session.send(arena_pb2.ServerMessage(seat_update=update))

    def _report(self, result: Result, started: float) -> MatchReport:
        ranks = final_ranks(result, [book.forfeited for book in self.seats])
        seats = tuple(
            SeatReport(
                seat,
                book.bot,
                result.scores[seat],
                ranks[seat],
                book.strikes,
                book.end_reason,
                book.detail,
                strike_log=tuple(book.strike_log),
            )
            for seat, book in enumerate(self.seats)
        )
        return MatchReport(
            match_id=self.match_id,
            game=self.game.spec.name,
            edition=self.game.spec.edition,
            seed=self.seed,
            options=self.options,
            seats=seats,
            decisions=tuple(self.decisions),
            observation_digests=tuple(tuple(book.digests) for book in self.seats),
            started_at=started,
            finished_at=time.time(),
            result=result,
            think_ms=tuple(
                tuple(
                    decision.elapsed_ms
                    for joint in self.decisions
                    for decision in joint
                    if decision.seat == seat and decision.elapsed_ms is not None
                )
                for seat in range(len(self.seats))
            ),
        )

    def _send_ends(self, report: MatchReport) -> None:
        results = [seat_result_proto(seat) for seat in report.seats]
        for seat, book in enumerate(self.seats):
            if book.session is None:
                continue
            end = arena_pb2.MatchEnd(
                match_id=self.match_id,
                seat=seat,
                end_reason=end_reason_proto(book.end_reason),
                results=results,
            )
            book.session.send(arena_pb2.ServerMessage(match_end=end))
            book.session.end_match(self.match_id)


def final_ranks(result: Result, faulty: list[bool]) -> tuple[int, ...]:
    """The game's ranks with every faulty seat moved below every sound one (sharing last place)."""
    sound = [seat for seat, bad in enumerate(faulty) if not bad]
    ranks = [0] * len(faulty)
    for seat in sound:
        ranks[seat] = 1 + sum(1 for other in sound if result.ranks[other] < result.ranks[seat])
    for seat, bad in enumerate(faulty):
        if bad:
            ranks[seat] = len(sound) + 1
    return tuple(ranks)


def end_reason_proto(reason: EndReason) -> common_pb2.EndReason:
    return cast(common_pb2.EndReason, common_pb2.EndReason.Value("END_REASON_" + reason.name))


def seat_result_proto(seat: SeatReport, with_stderr: bool = False) -> common_pb2.SeatResult:
    """A seat's result; its stderr tail only for the admin API (never for the match's bots)."""
    return common_pb2.SeatResult(
        stderr_tail=seat.stderr_tail if with_stderr else "",
        seat=seat.seat,
        bot=seat.bot,
        score=seat.score,
        rank=seat.rank,
        end_reason=end_reason_proto(seat.end_reason),
        strikes=seat.strikes,
        detail=seat.detail,
    )
