"""One bot for every row of ``server/refereeing/misbehaviour.py``, speaking gRPC or JSON lines
(behind the bridge).

    python -m kingmaker.sample_bots.faulty.misbehaving KEY [--json-lines]

It answers the first ``FAULT_AFTER`` requests (environment, default 2) with their first legal
action, then misbehaves as the row KEY says on every later one. Every ``Error`` it receives goes
to stderr as ``kingmaker: CODE: message``, every match end as ``kingmaker: match_end: REASON``, and
a gRPC stream's end as ``kingmaker: stream ended: STATUS``; it exits 1 after a stream end that is
not OK. The conformance suite (tests/protocol/test_misbehaviour_conformance.py) reads those lines.
Behind the bridge it says ``READY`` on stderr once it reads requests: the bridge says hello to the
server as it starts the program, so a match could ask the program before it is running.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from kingmaker.sample_bots.faulty.raw import Send, run
from kingmaker.v1 import arena_pb2

LATE_ONCE_SECONDS = 7.0
"""Past the wall ceiling of a limit up to 1 s (3.05 s), stretched or not (6.1 s; docs/protocol.md,
"The clock")."""
FLOOD = 25
"""Messages sent at once by the flooding rows: more than the 20 a match allows."""
UNDECODABLE = b"\xff\xff\xff\xff not a BotMessage"
OTHER_GAME_ACTION = "type.googleapis.com/kingmaker.kings_road.v1.Action"
READY = "kingmaker: reading requests"


def burn_cpu(seconds: float) -> None:
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass


def pushed_out_of_range(value: Any) -> Any:
    """The same JSON value with its first integer made 1000 larger (None if it holds none)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value + 1000
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        if key == "@type":
            continue
        changed = pushed_out_of_range(inner)
        if changed is not None:
            result = copy.deepcopy(value)
            result[key] = changed
            return result
    return None


class Misbehaving:
    """The behaviour of one row; ``answer`` and ``send_raw`` reach the server whatever the protocol."""

    def __init__(
        self,
        key: str,
        answer: Callable[[dict[str, Any]], None],
        send_raw: Callable[[bytes], None],
        output: Callable[[str], None] = lambda text: None,
    ):
        self.key = key
        self.answer = answer
        self.send_raw = send_raw
        self.output = output
        """Writes a line that is no reply (behind the bridge: on stdout)."""
        self.answered = 0
        self.fault_after = int(os.environ.get("FAULT_AFTER", "2"))
        self.was_late = False

    def late(self, ids: dict[str, Any], deadline_ms: int) -> None:
        burn_cpu(deadline_ms / 1000 + 0.5)
        self.answer({**ids, "legalActionIndex": 0})

    def on_request(
        self, match_id: str, request_id: str, deadline_ms: int, legal: list[dict[str, Any]]
    ) -> None:
        ids = {"matchId": match_id, "requestId": request_id}
        self.answered += 1
        if self.answered <= self.fault_after or (self.key == "late-once" and self.was_late):
            self.answer({**ids, "legalActionIndex": 0})
            return
        key = self.key
        if key == "late":
            # It computes in a thread of its own, so it still reads its stream meanwhile: the
            # errors it is sent are printed as they come, however little CPU the machine gives it
            # (a bot that computed in its reader could be stopped, at its forfeit, before it
            # ever read why).
            threading.Thread(target=self.late, args=(ids, deadline_ms), daemon=True).start()
        elif key == "late-once":
            self.was_late = True
            later = threading.Timer(LATE_ONCE_SECONDS, self.answer, ({**ids, "legalActionIndex": 0},))
            later.daemon = True
            later.start()
        elif key == "illegal":
            action = next((a for a in map(pushed_out_of_range, legal) if a is not None), None)
            self.answer({**ids, "action": action} if action else {**ids, "legalActionIndex": len(legal)})
        elif key == "index-out-of-range":
            self.answer({**ids, "legalActionIndex": len(legal) + 5})
        elif key == "no-choice":
            self.answer(ids)
        elif key == "wrong-type":
            self.answer({**ids, "action": {"@type": OTHER_GAME_ACTION}})
        elif key == "answers-again":
            for _ in range(FLOOD):
                self.answer({**ids, "legalActionIndex": 0})
        elif key == "wrong-field":
            self.answer({**ids, "actionIndex": 0})
        elif key == "prints-output":
            self.output("PHP Warning:  Undefined array key 3 in /bot/bot.php on line 12")
            self.answer({**ids, "legalActionIndex": 0})
        elif key == "wrong-request-id":
            self.answer({"matchId": match_id, "requestId": str(10**9 + self.answered), "legalActionIndex": 0})
        elif key == "unknown-requests":
            for n in range(FLOOD):
                self.answer({"matchId": match_id, "requestId": str(10**9 + n), "legalActionIndex": 0})
        elif key == "undecodable":
            self.send_raw(UNDECODABLE)
        elif key == "exits":
            os._exit(3)
        elif key == "segfaults":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif key == "hangs-up":
            self.send_raw(b"")  # end our half of the stream, and live on
        elif key != "silent":
            raise SystemExit(f"unknown misbehaviour {key!r}")


def report(message: dict[str, Any]) -> None:
    """Errors and match ends on stderr, as the suite reads them."""
    if "error" in message:
        code = message["error"].get("code", "")
        print(f"kingmaker: {code}: {message['error'].get('message', '')}", file=sys.stderr, flush=True)
    elif "matchEnd" in message:
        reason = message["matchEnd"].get("endReason", "")
        print(f"kingmaker: match_end: {reason}", file=sys.stderr, flush=True)


def json_lines(key: str) -> None:
    """Behind `kingmaker bridge`: requests on stdin, replies on stdout."""
    lock = threading.Lock()

    def answer(reply_json: dict[str, Any]) -> None:
        with lock:
            print(json.dumps(reply_json), flush=True)

    def send_raw(data: bytes) -> None:
        if not data:  # hang up: close stdout, and live on
            sys.stdout.flush()
            os.close(1)
            time.sleep(60)
            os._exit(0)

    def output(text: str) -> None:
        with lock:
            print(text, flush=True)

    bot = Misbehaving(key, answer, send_raw, output)
    print(READY, file=sys.stderr, flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        report(message)
        request = message.get("actionRequest")
        if request is not None:
            bot.on_request(
                request["matchId"], request["requestId"], int(request["deadlineMs"]), request["legalActions"]
            )


def grpc_stream(key: str) -> None:
    from google.protobuf import json_format

    from kingmaker.sdk.bridge import load_game_messages

    load_game_messages()
    holder: list[Send] = []

    def answer(reply_json: dict[str, Any]) -> None:
        message = json_format.ParseDict({"reply": reply_json}, arena_pb2.BotMessage())
        holder[0](message)

    def send_raw(data: bytes) -> None:
        holder[0](data if data else None)
        if not data:
            time.sleep(60)  # the process lives on; only its connection is gone

    bot = Misbehaving(key, answer, send_raw)

    def on_request(request: arena_pb2.ActionRequest, send: Send) -> None:
        holder[:] = [send]
        legal = [json_format.MessageToDict(action) for action in request.legal_actions]
        bot.on_request(request.match_id, str(request.request_id), request.deadline_ms, legal)

    if run(on_request) != "OK":
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("key")
    parser.add_argument("--json-lines", action="store_true")
    args = parser.parse_args()
    if args.json_lines:
        json_lines(args.key)
    else:
        grpc_stream(args.key)


if __name__ == "__main__":
    main()
