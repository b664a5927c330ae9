"""A seeded double-elimination bracket (Battlecode's finals), as pure arithmetic: which meetings
there are, at which stage each is played, and who sits in each once the meetings before it are
decided. Nothing here reads a database; ``competition_double`` feeds it the stored decisions.

For a bracket of ``size`` (the next power of two, ``k`` rounds: ``brackets``):

- the **winners' bracket** is the single-elimination bracket, seeded as it (byes to the best
  seeds); its round r is played at stage r;
- the **losers' bracket** has 2(k - 1) rounds; round j is played at stage j + 1. Round 1 pairs the
  losers of the winners' round 1 (adjacent meetings); an even round 2r seats the winner of each
  meeting of round 2r - 1 against a loser of the winners' round r + 1, who drop in **in reverse
  order** (the loser of the last meeting meets the winner of the first), which keeps apart two
  who just met; an odd round pairs the winners of the round before;
- the **grand final** (stage 2k) seats the winners' bracket's winner against the losers'
  bracket's winner (with 2 entries, the loser of the only winners' meeting). If the losers'
  bracket's winner wins it, each has lost once, and a **reset** (stage 2k + 1) decides.

A seat nobody fills (a bye, a walkover, a loser who had none) is None; a meeting with one None
is won by the other without a match and makes no loser, one with two None sends nobody on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kingmaker.ladder.competitions.brackets import bracket_size, seed_order

WINNERS, LOSERS, GRAND_FINAL, RESET = "winners", "losers", "grand final", "reset"
SIDES = (WINNERS, LOSERS, GRAND_FINAL, RESET)
"""In this order the meetings of one stage take their slots."""

Place = tuple[int, int]
"""(stage, slot) of a meeting: how it is stored (its league, its decision)."""


@dataclass(frozen=True)
class Source:
    """Where a seat of a meeting comes from: a seed (1 best), or the winner or loser of a meeting."""

    kind: str
    """"seed", "winner" or "loser"."""
    seed: int = 0
    meeting: Place = (0, 0)


@dataclass(frozen=True)
class Meeting:
    stage: int
    slot: int
    side: str
    round: int
    """Its round within its side (1 for the grand final and the reset)."""
    index: int
    """Its place within that round, top first."""
    sources: tuple[Source, Source]

    @property
    def label(self) -> str:
        """How a decision names it: "winners' round 2", "the grand final"."""
        if self.side in (WINNERS, LOSERS):
            return f"{self.side}' round {self.round}"
        return f"the {self.side}"


@dataclass(frozen=True)
class Resolved:
    """A meeting with what is known of it: its seats once the meetings before it are decided."""

    meeting: Meeting
    pair: tuple[int | None, int | None] | None
    """None while a meeting it comes from is undecided (or a reset nobody needs)."""
    decided: bool
    winner: int | None = None
    loser: int | None = None
    needed: bool = True
    """False only for a reset after the winners' bracket's winner took the grand final."""


def rounds(entries: int) -> int:
    """k: the winners' bracket's rounds."""
    return bracket_size(entries).bit_length() - 1


def grand_final_stage(entries: int) -> int:
    return 2 * rounds(entries)


def layout(entries: int) -> list[Meeting]:
    """Every meeting of a bracket of ``entries``, by stage, then slot."""
    size, k = bracket_size(entries), rounds(entries)
    order = seed_order(size)
    found: dict[tuple[str, int, int], Meeting] = {}
    Want = tuple[str, str, int, int]
    plans: list[tuple[int, str, int, int, tuple[Want, Want]]] = []
    for r in range(1, k + 1):
        for i in range(size >> r):
            plans.append((r, WINNERS, r, i, (_at(WINNERS, r, i, 0), _at(WINNERS, r, i, 1))))
    for j in range(1, 2 * k - 1):
        for i in range(size >> ((j + 1) // 2 + 1)):
            plans.append((j + 1, LOSERS, j, i, (_at(LOSERS, j, i, 0), _at(LOSERS, j, i, 1))))
    plans.append((2 * k, GRAND_FINAL, 1, 0, (_at(GRAND_FINAL, 1, 0, 0), _at(GRAND_FINAL, 1, 0, 1))))
    plans.append((2 * k + 1, RESET, 1, 0, (_at(GRAND_FINAL, 1, 0, 0), _at(GRAND_FINAL, 1, 0, 1))))
    plans.sort(key=lambda plan: (plan[0], SIDES.index(plan[1]), plan[3]))
    slots: dict[int, int] = {}
    for stage, side, r, i, wanted in plans:
        slot = slots.get(stage, 0)
        slots[stage] = slot + 1
        sources = (_source(found, wanted[0], order, k), _source(found, wanted[1], order, k))
        found[(side, r, i)] = Meeting(stage, slot, side, r, i, sources)
    return sorted(found.values(), key=lambda m: (m.stage, m.slot))


def resolve(seeded: Sequence[int], decided: Mapping[Place, int | None]) -> list[Resolved]:
    """Every meeting of the bracket of ``seeded`` (bot ids, best seed first) with its seats and,
    where ``decided`` has it (place -> the winner, None: nobody went on), its result."""
    known: dict[Place, Resolved] = {}
    for meeting in layout(len(seeded)):
        seats = [_seat(source, seeded, known) for source in meeting.sources]
        place = (meeting.stage, meeting.slot)
        if any(seat is _UNKNOWN for seat in seats):
            known[place] = Resolved(meeting, None, False)
            continue
        pair = (_bot(seats[0]), _bot(seats[1]))
        if meeting.side == RESET:
            final = known[(meeting.stage - 1, 0)]
            if not final.decided:
                known[place] = Resolved(meeting, None, False)
                continue
            if not reset_needed(final):
                known[place] = Resolved(meeting, None, True, needed=False)
                continue
        if place not in decided:
            known[place] = Resolved(meeting, pair, False)
            continue
        winner = decided[place]
        loser = pair[1] if winner == pair[0] else pair[0] if winner == pair[1] else None
        known[place] = Resolved(meeting, pair, True, winner, loser if winner is not None else None)
    return list(known.values())


def reset_needed(grand_final: Resolved) -> bool:
    """The losers' bracket's winner took the grand final from a winners' bracket winner who had
    not lost yet: each has lost once, and they meet again."""
    assert grand_final.pair is not None
    first, second = grand_final.pair
    return first is not None and second is not None and grand_final.winner == second


def champion(resolved: Sequence[Resolved]) -> tuple[bool, int | None]:
    """(over, winner): over once the grand final is decided and no reset is needed, or the reset
    is decided; the winner None if nobody was left to win."""
    final, reset = resolved[-2], resolved[-1]
    if reset.decided and reset.needed:
        return True, reset.winner
    if final.decided and not reset_needed(final):
        return True, final.winner
    return False, None


def at_stage(resolved: Sequence[Resolved], stage: int) -> list[Resolved]:
    return [row for row in resolved if row.meeting.stage == stage]


_UNKNOWN = object()


def _bot(seat: object) -> int | None:
    assert seat is None or isinstance(seat, int)
    return seat


def _seat(source: Source, seeded: Sequence[int], known: Mapping[Place, Resolved]) -> object:
    if source.kind == "seed":
        return seeded[source.seed - 1] if source.seed <= len(seeded) else None
    before = known[source.meeting]
    if not before.decided:
        return _UNKNOWN
    return before.winner if source.kind == "winner" else before.loser


def _at(side: str, r: int, i: int, seat: int) -> tuple[str, str, int, int]:
    """What seat ``seat`` of meeting (side, r, i) wants, before the meetings have places:
    (kind, side, round, index) of the meeting it comes from, or ("seed", "", 0, seed index)."""
    if side == WINNERS:
        if r == 1:
            return ("seed", "", 0, 2 * i + seat)
        return ("winner", WINNERS, r - 1, 2 * i + seat)
    if side == LOSERS:
        if r == 1:
            return ("loser", WINNERS, 1, 2 * i + seat)
        if r % 2 == 0:  # a drop-in round: the losers of the winners' round r/2 + 1, reversed
            if seat == 0:
                return ("winner", LOSERS, r - 1, i)
            return ("loser", WINNERS, r // 2 + 1, -1 - i)
        return ("winner", LOSERS, r - 1, 2 * i + seat)
    if seat == 0:
        return ("winner", WINNERS, -1, 0)  # the winners' final
    return ("winner", LOSERS, -1, 0)  # the losers' final (or, with no losers' bracket, see _source)


def _source(
    found: Mapping[tuple[str, int, int], Meeting],
    wanted: tuple[str, str, int, int],
    order: Sequence[int],
    k: int,
) -> Source:
    kind, side, r, i = wanted
    if kind == "seed":
        return Source("seed", seed=order[i])
    if r == -1:
        r = k if side == WINNERS else 2 * k - 2
        if r == 0:  # two entries: no losers' bracket; the loser of the only meeting plays on
            kind, side, r = "loser", WINNERS, 1
    if i < 0:
        i += sum(1 for (s, rr, _) in found if s == side and rr == r)
    meeting = found[(side, r, i)]
    return Source(kind, meeting=(meeting.stage, meeting.slot))
