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

from dataclasses import dataclass

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
