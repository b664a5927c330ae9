"""The admin's webhook (``serve --notify-webhook URL``): every new notice to an author
(``ladder.bots.notices``) POSTed as JSON, in order, from a thread of its own, so a slow or dead
receiver never holds a match, a build or a request. Each POST has a bounded timeout and a few
tries with a growing pause; one that still fails is logged and skipped, never retried forever.

A notice's ``summary`` is what anyone may read (the bot's public page says as much); its
``detail`` (a build's error, the A/B figures) is its author's alone and is never sent: a
club's webhook is often a shared channel."""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from kingmaker.ladder.bots import notices
from kingmaker.ladder.bots.notices import NoticeRecord
from kingmaker.ladder.storage.db import Database
from kingmaker.server.services.host_paths import neutral

log = logging.getLogger("kingmaker.server")

TIMEOUT_S = 5.0
"""One POST's bound: connecting and answering."""
TRIES = 3
PAUSES_S = (1.0, 4.0)
"""Between the tries: a receiver restarting gets a few seconds."""
LOOK_S = 1.0
"""How often the table is read for new notices (one indexed read)."""
BATCH = 100


class WebhookError(ValueError):
    """A webhook address that cannot be one (one line)."""


def check_url(url: str) -> str:
    """``url`` if it is an http(s) address with a host; ``WebhookError`` otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookError(f"a webhook is an http:// or https:// address with a host, not {url[:80]!r}")
    return url


def payload(notice: NoticeRecord) -> dict[str, object]:
    """What the webhook receives of a notice: never its ``detail``."""
    return {
        "id": notice.id,
        "author": notice.author,
        "kind": notice.kind,
        "summary": neutral(notice.summary),
        "bot": notice.bot,
        "version": notice.version,
        "competition": notice.competition,
        "created_at": notice.created_at.isoformat(timespec="seconds"),
    }


class NoticeWebhook:
    """Sends the notices written after it started, until ``stop``."""

    def __init__(self, db: Database, url: str, timeout_s: float = TIMEOUT_S,
                 pauses_s: tuple[float, ...] = PAUSES_S, look_s: float = LOOK_S) -> None:  # fmt: skip
        self.db, self.url = db, check_url(url)
        self.timeout_s, self.pauses_s, self.look_s = timeout_s, pauses_s, look_s
        self.sent = 0
        self.failed = 0
        self._stopping = threading.Event()
        self._cursor = notices.newest_notice(db)  # older news was the console's to show
        self._thread = threading.Thread(target=self._run, name="notice webhook", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=self.timeout_s * TRIES + sum(self.pauses_s) + 5)

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                for notice in notices.notices_after(self.db, self._cursor, BATCH):
                    if self._stopping.is_set():
                        return
                    self._send(notice)
                    self._cursor = notice.id
            except Exception:  # the database away for a moment: look again later
                log.exception("notice webhook: could not read the notices; trying again")
            self._stopping.wait(self.look_s)

    def _send(self, notice: NoticeRecord) -> None:
        body = json.dumps(payload(notice)).encode()
        for attempt in range(TRIES):
            request = urllib.request.Request(
                self.url, data=body, method="POST", headers={"Content-Type": "application/json"}
            )
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:
                    answer.read(1024)
                self.sent += 1
                return
            except (urllib.error.URLError, OSError, ValueError) as error:
                problem = str(error)
            if attempt < len(self.pauses_s) and self._stopping.wait(self.pauses_s[attempt]):
                return
        self.failed += 1
        log.warning("notice webhook: notice %s not delivered after %d tries: %s", notice.id, TRIES, problem)
