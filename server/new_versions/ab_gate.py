"""The A/B gate of ``submit --ab``: the test, its cap, the rule at the cap, and how a verdict reads.

Per game the bot plays, the new version duels the active one (``server/scheduling/duels.py``) under
``AB_TEST``: H0 "the new version is 50 Elo weaker", H1 "it is not weaker" (Elo -50 / 0), the
exact GSPRT of ``sdk/sprt.py`` unchanged. Its Wald bounds alone do not make the gate's error
rates: a duel cut at a cap and read as a rejection rejected an equal version 22% of the time.
So the gate is a *truncated* SPRT with these rules:

- alpha = beta = 0.03 (not 0.05): the test's own rates sit near its nominal ones, and the cap
  adds a little, so the margin keeps both gate rates within 0.05;
- at most ``AB_MAX_MATCHES`` matches a game (400 seeds with two seats), where few duels arrive;
- at the cap, the sign of the LLR decides: above 0 (the data are likelier under "not weaker"
  than under "50 weaker") accepts the new version, otherwise rejects it;
- a duel stopped for another reason (a seat the server could not fill) rejects it;
- the version must pass in every game: a version 50 Elo weaker in any game fails there.

Measured by ``bench/sprt_error_rates.py`` (figures in ``docs/submissions.md``): per game, an
equal version passes at least 0.95 of the time and a 50-Elo-weaker one fails at least 0.95 of
the time, with two seats and no draws (the hardest case), with draws and with three seats.
Across k games an equal version passes all k with about the product of its per-game rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kingmaker.games.registry import get_game
from kingmaker.sdk.sprt import Sprt, Tally, Verdict, elo_estimate

AB_TEST = Sprt(elo0=-50.0, elo1=0.0, alpha=0.03, beta=0.03)
"""H0 "the new version is 50 Elo weaker than the active one", H1 "it is not weaker"."""
AB_MAX_MATCHES = 800
"""Per game; at this many matches the LLR's sign decides (``gate_verdict``)."""


def gate_verdict(verdict: Verdict, units: Tally, at_cap: bool, test: Sprt = AB_TEST) -> Verdict:
    """The gate's verdict on a finished duel: the SPRT's when it decided; at the cap, H1 when the
    LLR is above 0 and H0 otherwise; ``CONTINUE`` (no verdict: a rejection) for a stopped duel."""
    if verdict is not Verdict.CONTINUE or not at_cap:
        return verdict
    return Verdict.H1 if test.llr(units) > 0 else Verdict.H0


@dataclass(frozen=True)
class GameResult:
    """How one game's duel ended, in the words ``submit`` prints and the version keeps."""

    bot: str
    new: int
    old: int
    game: str
    matches: int
    elo: float
    half_width: float
    verdict: Verdict
    at_cap: bool = False
    stopped: str = ""
    """Why a duel ended without a verdict (a seat the server could not fill)."""

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.H1

    def words(self) -> str:
        """The verdict in plain words: "not weaker than v2 in Kingdoms: 212 matches, -3 ± 14 Elo"."""
        where = f"in {title(self.game)}"
        figures = f"{self.matches} matches, {elo_text(self.elo, self.half_width)}"
        if self.stopped:
            return f"no verdict {where}, {self.stopped}: {figures}"
        how = f" (at the {AB_MAX_MATCHES}-match cap, by the LLR's sign)" if self.at_cap else ""
        said = "not weaker" if self.passed else "weaker"
        return f"{said} than v{self.old} {where}{how}: {figures}"

    def line(self) -> str:
        """``annbot v3 vs v2, kingdoms: 212 matches, -3 ± 14 Elo: not weaker (accepted)``."""
        half = "inf" if self.half_width == float("inf") else f"{self.half_width:.0f}"
        head = f"{self.bot} v{self.new} vs v{self.old}, {self.game}: {self.matches} matches, "
        head += f"{self.elo:+.0f} ± {half} Elo: "
        if self.stopped:
            return head + f"no verdict, {self.stopped} (rejected)"
        how = " at the cap, by the LLR's sign" if self.at_cap else ""
        if self.passed:
            return head + f"not weaker{how} (accepted)"
        return head + f"weaker{how} (rejected)"


def game_result(bot: str, new: int, old: int, game: str, matches: int, units: Tally, verdict: Verdict,
                at_cap: bool, stopped: str = "") -> GameResult:  # fmt: skip
    """The gate's result from a finished duel's tally (the verdict as the duel left it)."""
    elo, half = elo_estimate(units)
    decided = gate_verdict(verdict, units, at_cap)
    capped = at_cap and verdict is Verdict.CONTINUE
    return GameResult(bot, new, old, game, matches, elo, half, decided, capped, stopped)


def title(game: str) -> str:
    """A game as people name it: "King's Road" for ``kings_road``."""
    return get_game(game).spec.title


def elo_text(elo: float, half_width: float) -> str:
    """ "-3 ± 14 Elo" ("± inf" while the interval still reaches a clean sweep)."""
    half = "inf" if math.isinf(half_width) else f"{half_width:.0f}"
    return f"{elo:+.0f} ± {half} Elo"


def undecided_words(
    game: str, old: int, matches: int, elo: float, half_width: float, left_s: float | None
) -> str:
    """A duel still running, in plain words: "still undecided in Kingdoms: 40 of at most 800
    matches, -3 ± 40 Elo, about 6 min left"."""
    text = f"still undecided in {title(game)}: {matches} of at most {AB_MAX_MATCHES} matches"
    text += f" against v{old}, {elo_text(elo, half_width)}"
    return text + (f", {time_left(left_s)}" if left_s is not None else "")


def seeds_left(units: Tally, cap_seeds: int, test: Sprt = AB_TEST) -> int:
    """How many more seeds the duel will likely play: the LLR has moved ``llr / n`` a seed so far;
    at that pace, the seeds it takes to reach the bound it is heading for (Wald's ``lower`` or
    ``upper``), never past the cap. A rough guide, not a promise: the LLR's pace changes."""
    n = units.n
    left_at_cap = max(0, cap_seeds - n)
    if n == 0:
        return left_at_cap
    llr = test.llr(units)
    pace = llr / n
    if pace > 0:
        needed = (test.upper - llr) / pace
    elif pace < 0:
        needed = (llr - test.lower) / -pace
    else:
        return left_at_cap
    return min(left_at_cap, max(0, math.ceil(needed)))


def seconds_left(
    units: Tally, matches: int, elapsed_s: float, matches_per_seed: int, cap_seeds: int
) -> float | None:
    """The time the duel will likely still take, at the rate of matches so far; None before any."""
    if matches <= 0 or elapsed_s <= 0:
        return None
    return seeds_left(units, cap_seeds) * matches_per_seed * elapsed_s / matches


def time_left(seconds: float) -> str:
    """ "about 6 min left", "under a minute left"."""
    if seconds < 60:
        return "under a minute left"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"about {minutes} min left"
    return f"about {minutes / 60:.1f} h left"
