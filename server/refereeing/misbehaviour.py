"""What the server does to a bot that misbehaves, one row per misbehaviour: the single source of
docs/protocol.md's table "Misbehaviour, row by row" (a test checks the doc against ``ROWS``) and
of the protocol conformance suite (tests/protocol/test_misbehaviour_conformance.py), which plays every row
through gRPC and through the bridge, as a launched and as a remote bot, and asserts the row.

Print the doc's table with ``python -m kingmaker.server.refereeing.misbehaviour``.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX = "`max_strikes`"
"""The strikes column for a fault that repeats until the seat forfeits."""


@dataclass(frozen=True)
class Misbehaviour:
    key: str
    """Its name in the suite and for ``sample_bots/faulty/misbehaving.py``."""
    does: str
    """What the bot does, from some point in a match on."""
    errors: tuple[str, ...]
    """The ``Error`` codes the bot is sent, in order (none: it is gone)."""
    ends_as: str
    """The seat's ``end_reason`` when the server launched the bot."""
    remote_ends_as: str
    """... when the bot is remote (the server cannot see its process)."""
    strikes: str
    """The strikes the seat ends with: a number, or ``MAX``."""
    stream: str
    """The gRPC status the stream then ends with (``""``: the bot ended it)."""
    process: str = ""
    """How the seat's ``detail`` says a launched bot's process ended (remote: "the stream closed")."""
    grpc_only: bool = False
    """Cannot be said through the bridge (every line it forwards is a well-formed message)."""
    bridge_only: bool = False
    """Can only be said through the bridge (a line of JSON, or of no JSON, on a program's stdout)."""

    def cells(self) -> tuple[str, ...]:
        ends = f"`{self.ends_as}`" + (
            f" (remote: `{self.remote_ends_as}`)" if self.remote_ends_as != self.ends_as else ""
        )
        if self.process:
            ends += f", detail: the bot's process {self.process}"
        return (
            self.does + (" (gRPC only)" if self.grpc_only else " (bridge only)" if self.bridge_only else ""),
            ", then ".join(f"`{code}`" for code in self.errors) or "none",
            ends,
            self.strikes,
            f"`{self.stream}`" if self.stream else "(the bot ended it)",
        )


ROWS = (
    Misbehaviour(
        "late",
        "answers every decision after its time (CPU for a launched bot, wall for a remote one)",
        ("LATE_REPLY", "FORFEITED"), "TIMEOUT", "TIMEOUT", MAX, "OK",
    ),
    Misbehaviour(
        "late-once",
        "answers one decision after the wall ceiling, every other in time",
        ("LATE_REPLY",), "FINISHED", "FINISHED", "1", "OK",
    ),
    Misbehaviour(
        "silent", "stops answering but stays connected",
        ("LATE_REPLY", "FORFEITED"), "TIMEOUT", "TIMEOUT", MAX, "OK",
    ),
    Misbehaviour(
        "illegal",
        "answers with an `action` that is well formed but not legal now",
        ("ILLEGAL_ACTION", "FORFEITED"), "ILLEGAL_ACTION", "ILLEGAL_ACTION", MAX, "OK",
    ),
    Misbehaviour(
        "index-out-of-range",
        "answers with a `legal_action_index` past the end of `legal_actions`",
        ("MALFORMED_REPLY", "FORFEITED"), "MALFORMED_REPLY", "MALFORMED_REPLY", MAX, "OK",
    ),
    Misbehaviour(
        "no-choice",
        "answers with neither an index nor an action",
        ("MALFORMED_REPLY", "FORFEITED"), "MALFORMED_REPLY", "MALFORMED_REPLY", MAX, "OK",
    ),
    Misbehaviour(
        "wrong-field",
        "answers with a JSON object that is no reply (`actionIndex` for `legalActionIndex`); the "
        "error names what is wrong and quotes the line",
        ("MALFORMED_REPLY", "FORFEITED"), "MALFORMED_REPLY", "MALFORMED_REPLY", MAX, "OK",
        bridge_only=True,
    ),
    Misbehaviour(
        "prints-output",
        "writes a line that is not a JSON object (a warning, a debug print) before each reply: "
        "its output, quoted in its log, never a strike",
        (), "FINISHED", "FINISHED", "0", "OK", bridge_only=True,
    ),
    Misbehaviour(
        "wrong-type",
        "answers with an `action` of another game's type",
        ("MALFORMED_REPLY", "FORFEITED"), "MALFORMED_REPLY", "MALFORMED_REPLY", MAX, "OK",
    ),
    Misbehaviour(
        "answers-again",
        "answers the same request again, more than 20 extra times in one match",
        ("LATE_REPLY", "FLOODING", "FORFEITED"), "PROTOCOL_ERROR", "PROTOCOL_ERROR", "0",
        "RESOURCE_EXHAUSTED",
    ),
    Misbehaviour(
        "wrong-request-id",
        "answers each request naming a request that is not open, and nothing else",
        ("UNKNOWN_REQUEST", "FORFEITED"), "PROTOCOL_ERROR", "PROTOCOL_ERROR", MAX, "OK",
    ),
    Misbehaviour(
        "unknown-requests",
        "sends more than 20 replies naming requests that are not open, in one match",
        ("UNKNOWN_REQUEST", "FLOODING", "FORFEITED"), "PROTOCOL_ERROR", "PROTOCOL_ERROR", "0",
        "RESOURCE_EXHAUSTED",
    ),
    Misbehaviour(
        "undecodable",
        "sends bytes that do not decode as a `BotMessage`",
        ("MALFORMED_REPLY", "FORFEITED"), "MALFORMED_REPLY", "MALFORMED_REPLY", "0",
        "INVALID_ARGUMENT", grpc_only=True,
    ),
    Misbehaviour(
        "exits", "exits with code 3 mid-match", (), "CRASHED", "DISCONNECTED", "0", "",
        process="exited with code 3",
    ),
    Misbehaviour(
        "segfaults", "is killed by SIGSEGV mid-match", (), "CRASHED", "DISCONNECTED", "0", "",
        process="was killed by SIGSEGV",
    ),
    Misbehaviour(
        "hangs-up",
        "closes its stream (through the bridge: its stdout) mid-match, its process alive",
        (), "DISCONNECTED", "DISCONNECTED", "0", "",
    ),
)  # fmt: skip

HEADER = ("the bot", "errors it is sent", "its seat ends as", "strikes", "status the stream ends with")


def markdown_table() -> str:
    """The table as docs/protocol.md shows it."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in ROWS]
    return "\n".join(lines)


def row(key: str) -> Misbehaviour:
    return next(candidate for candidate in ROWS if candidate.key == key)


if __name__ == "__main__":
    print(markdown_table())
