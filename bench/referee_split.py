"""The referee's CPU per decision, process by process, beside the bare transport's (issue 50).

``bench/referee.py --split``. One served referee (``kingmaker serve``: the jail, the default
executor) plays Kingdoms leagues of 16 instant managed bots at 8 matches at once; the bare grpc.aio
ping-pong plays 8 matches of the same shape. Each is run short and long, in turn, and the CPU of
every process is read from /proc (``process_cpu``): the marginal CPU per decision between the two
lengths cancels start-ups. The referee's processes are sorted into its main process, its worker
processes, the bots and the jail; the transport's into its server (this process, where it runs)
and its clients. Beside them: the combined decision rate of the long runs (``rates``), and the
main process's CPU per match.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass

from process_cpu import Kind, TreeSampler, classify_served, marginal_per_decision
from referee import INSTANT, PingPongServer, ServedReferee
from table import Row, Spread

MATCHES_AT_ONCE = 8


@dataclass(frozen=True)
class Run:
    """One run's CPU seconds per kind of process, its decisions and matches, and its rate."""

    cpu: dict[Kind, float]
    decisions: int
    matches: int
    rate: float


def referee_run(referee: ServedReferee, matches: int) -> Run:
    sampler = TreeSampler(referee.server.process.pid, classify_served)
    try:
        rate = referee.play(matches)
    finally:
        cpu = sampler.stop()
    finishes = referee._finishes(f"run-{referee.runs}")
    return Run(cpu, sum(decisions for _, decisions in finishes), len(finishes), rate)


def transport_run(transport: PingPongServer, decisions_per_match: int) -> Run:
    """The ping-pong's server runs in this process, so this process's CPU clock is its; its clients
    are this process's children, waited for before ``run`` returns."""
    server_before = time.process_time()
    clients_before = _children_seconds()
    rate = transport.run(MATCHES_AT_ONCE, decisions_per_match)
    cpu = {"server": time.process_time() - server_before, "clients": _children_seconds() - clients_before}
    return Run(cpu, MATCHES_AT_ONCE * decisions_per_match, MATCHES_AT_ONCE, rate)


def _children_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def split_rows(quick: bool) -> list[Row]:
    runs = 2 if quick else 3
    # A league plays whole rounds of its round robin: 120 matches for 16 bots.
    short_matches, long_matches = (120, 240) if quick else (120, 480)
    short_turns, long_turns = (400, 1600) if quick else (400, 2400)
    transport = PingPongServer()
    referee = ServedReferee("kingdoms", MATCHES_AT_ONCE, INSTANT, [])
    per_decision: dict[str, list[float]] = {}
    main_per_match: list[float] = []
    ratios: list[float] = []
    rates: dict[str, list[float]] = {"referee": [], "transport": []}
    try:
        for _ in range(runs):
            # In turn, so that the machine's drift falls on both alike.
            short, long_ = referee_run(referee, short_matches), referee_run(referee, long_matches)
            t_short, t_long = transport_run(transport, short_turns), transport_run(transport, long_turns)
            ours = marginal_per_decision(short.cpu, short.decisions, long_.cpu, long_.decisions)
            theirs = marginal_per_decision(t_short.cpu, t_short.decisions, t_long.cpu, t_long.decisions)
            for kind in ("main", "workers", "bots", "jail"):
                per_decision.setdefault(kind, []).append(ours.get(kind, 0.0))
            side = ours.get("main", 0.0) + ours.get("workers", 0.0)
            per_decision.setdefault("side", []).append(side)
            per_decision.setdefault("server", []).append(theirs["server"])
            per_decision.setdefault("clients", []).append(theirs["clients"])
            ratios.append(side / theirs["server"])
            main_per_match.append(
                (long_.cpu.get("main", 0.0) - short.cpu.get("main", 0.0))
                / (long_.matches - short.matches)
                * 1e3
            )
            rates["referee"].append(long_.rate)
            rates["transport"].append(t_long.rate)
    finally:
        referee.close()
        transport.close()
    what = f"kingdoms, instant bots, default serve (jail on), {MATCHES_AT_ONCE} matches at once"
    server = Spread.of(per_decision["server"])
    side = Spread.of(per_decision["side"])
    unit = "µs CPU/decision"
    return [
        Row(
            "split",
            f"{what}: referee's side (main + workers)",
            unit,
            side,
            reference="bare transport's server",
            reference_value=server,
            goal="≤ 2x the transport's server",
            met=side.median <= 2 * server.median,
        ),
        Row("split", f"{what}: main process", unit, Spread.of(per_decision["main"])),
        Row("split", f"{what}: worker processes", unit, Spread.of(per_decision["workers"])),
        Row(
            "split",
            f"{what}: bots",
            unit,
            Spread.of(per_decision["bots"]),
            reference="bare transport's clients",
            reference_value=Spread.of(per_decision["clients"]),
        ),
        Row("split", f"{what}: the jail", unit, Spread.of(per_decision["jail"])),
        Row(
            "split",
            f"{what}: main process per match",
            "ms CPU/match",
            Spread.of(main_per_match),
            goal="≤ 5 ms",
            met=Spread.of(main_per_match).median <= 5,
        ),
        Row(
            "split",
            f"{what}: combined rate of the long runs",
            "decisions/s",
            Spread.of(rates["referee"]),
            reference="bare transport, same run",
            reference_value=Spread.of(rates["transport"]),
            goal="≥ 0.7 of the transport",
            met=Spread.of(rates["referee"]).median >= 0.7 * Spread.of(rates["transport"]).median,
        ),
        Row("split", f"{what}: referee's side over the transport's server", "ratio", Spread.of(ratios)),
    ]
