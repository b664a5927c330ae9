"""The double-elimination bracket's arithmetic: its layout for 8, and over random fields and
random results, nobody plays after a second loss, everyone but the champion loses exactly twice,
and the champion is whoever won the grand final (or its reset)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from kingmaker.ladder.competitions.double_elimination import (
    GRAND_FINAL,
    LOSERS,
    RESET,
    WINNERS,
    Resolved,
    at_stage,
    champion,
    grand_final_stage,
    layout,
    resolve,
)


def run(entries: int, pick: random.Random) -> tuple[list[Resolved], int | None]:
    """Decide every meeting stage by stage, a random seat winning each: (the bracket, its champion)."""
    seeded = list(range(100, 100 + entries))
    decided: dict[tuple[int, int], int | None] = {}
    stage = 1
    while True:
        for row in at_stage(resolve(seeded, decided), stage):
            if not row.needed:
                continue
            assert row.pair is not None, f"stage {stage}: {row.meeting} does not know its seats"
            present = [bot for bot in row.pair if bot is not None]
            decided[(stage, row.meeting.slot)] = pick.choice(present) if present else None
        resolved = resolve(seeded, decided)
        over, winner = champion(resolved)
        if over:
            return resolved, winner
        stage += 1


def test_a_bracket_of_8_has_its_stages_and_its_losers_drop_in_reversed() -> None:
    meetings = layout(8)
    by_stage = Counter(m.stage for m in meetings)
    # winners' rounds 1-3 at stages 1-3; losers' rounds 1-4 at stages 2-5; grand final 6; reset 7.
    assert by_stage == {1: 4, 2: 2 + 2, 3: 1 + 2, 4: 1, 5: 1, 6: 1, 7: 1}
    assert grand_final_stage(8) == 6
    sides = Counter(m.side for m in meetings)
    assert sides == {WINNERS: 7, LOSERS: 6, GRAND_FINAL: 1, RESET: 1}
    # Losers' round 2: the first losers' round 1 winner meets the loser of the *second* winners'
    # round 2 meeting (1 v 4 / 2 v 3: seeds 4 and 5 met in round 1, they do not meet again at once).
    (first_drop,) = [m for m in meetings if m.side == LOSERS and m.round == 2 and m.index == 0]
    second_w2 = next(m for m in meetings if m.side == WINNERS and m.round == 2 and m.index == 1)
    assert first_drop.sources[1].kind == "loser"
    assert first_drop.sources[1].meeting == (second_w2.stage, second_w2.slot)
    assert [m.slot for m in meetings if m.stage == 2] == [0, 1, 2, 3]
    assert [m.side for m in meetings if m.stage == 2] == [WINNERS, WINNERS, LOSERS, LOSERS]


def test_two_entries_meet_in_the_winners_round_then_the_grand_final_and_its_reset() -> None:
    decided: dict[tuple[int, int], int | None] = {(1, 0): 1}
    bracket = resolve([1, 2], decided)
    final = at_stage(bracket, 2)[0]
    assert final.meeting.side == GRAND_FINAL and final.pair == (1, 2)
    decided[(2, 0)] = 2  # the loser of the first meeting wins the grand final: a reset
    bracket = resolve([1, 2], decided)
    assert champion(bracket) == (False, None)
    assert at_stage(bracket, 3)[0].pair == (1, 2)
    decided[(3, 0)] = 2
    assert champion(resolve([1, 2], decided)) == (True, 2)
    # Had the first meeting's winner taken the grand final, no reset.
    bracket = resolve([1, 2], {(1, 0): 1, (2, 0): 1})
    assert champion(bracket) == (True, 1) and not bracket[-1].needed


def test_a_field_of_5_gives_its_byes_to_the_best_seeds_in_both_brackets() -> None:
    seeded = [1, 2, 3, 4, 5]
    first = at_stage(resolve(seeded, {}), 1)
    played = [row.pair for row in first if row.pair is not None and None not in row.pair]
    assert played == [(4, 5)]  # seeds 1, 2, 3 have byes
    decided = {(1, row.meeting.slot): next(b for b in row.pair or () if b is not None) for row in first}
    decided[(1, 1)] = 4
    losers_round_1 = [row for row in at_stage(resolve(seeded, decided), 2) if row.meeting.side == LOSERS]
    assert [row.pair for row in losers_round_1] == [(None, 5), (None, None)]


@settings(max_examples=300, deadline=None)
@given(entries=st.integers(min_value=2, max_value=40), seed=st.integers(min_value=0, max_value=10**6))
def test_everyone_but_the_champion_loses_twice_and_nobody_plays_after_a_second_loss(
    entries: int, seed: int
) -> None:
    bracket, winner = run(entries, random.Random(seed))
    assert winner is not None
    losses: Counter[int] = Counter()
    for row in sorted(bracket, key=lambda row: row.meeting.stage):
        if not row.needed:
            continue
        assert row.decided and row.pair is not None
        for bot in row.pair:
            assert bot is None or losses[bot] < 2, f"{bot} plays {row.meeting.label} after two losses"
        if row.loser is not None:
            losses[row.loser] += 1
    field = set(range(100, 100 + entries))
    assert all(losses[bot] == 2 for bot in field - {winner})
    assert losses[winner] <= 1
    final, reset = bracket[-2], bracket[-1]
    assert final.meeting.side == GRAND_FINAL and reset.meeting.side == RESET
    assert winner == (reset.winner if reset.needed else final.winner), "the champion won the last final"
    if reset.needed:  # the losers' bracket's winner won the grand final, then they met again
        assert final.pair is not None and final.winner == final.pair[1] and reset.pair == final.pair
    assert final.pair is not None and losses[final.pair[0]] + losses[final.pair[1]] >= 1
    # each stage seats an entry at most once
    for stage in {row.meeting.stage for row in bracket}:
        seated = [bot for row in at_stage(bracket, stage) if row.pair for bot in row.pair if bot is not None]
        assert len(seated) == len(set(seated))
