"""The website at scale: the standings page of a 10,000-bot ladder (bench/standings.py builds the
database the same way), fetched over HTTP from the site on loopback, and loaded in a headless
Chromium (navigation start to the load event), beside the same rows by one raw SQL query.

    .venv/bin/python bench/web.py [--quick]
"""

from __future__ import annotations

import http.client
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from standings import GAME, build, raw_standings_ms
from table import Row, alternate

from kingmaker.ladder.db import open_database
from kingmaker.server.web.serve import BackgroundWebServer

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


def rows(quick: bool) -> list[Row]:
    bots, matches = (10_000, 20_000) if quick else (10_000, 100_000)
    runs = 7 if quick else 15
    folder = Path(tempfile.mkdtemp(prefix="km-web-bench-"))
    path = folder / "big.db"
    build(path, bots, matches)
    db = open_database(f"sqlite:///{path}", upgrade=False)
    site = BackgroundWebServer(db)
    found: list[Row] = []
    size = f"{bots:,} bots"
    try:
        address = urlsplit(site.url)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)

        def fetch(target: str) -> float:
            tick = time.perf_counter()
            connection.request("GET", target)
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200 and b"bot-" in body, response.status
            return (time.perf_counter() - tick) * 1000

        for label, target in (
            ("standings page 1 (HTML)", f"/standings/{GAME}"),
            ("standings page 200, the last (HTML)", f"/standings/{GAME}?page=200"),
            ("standings page 1 (JSON API)", f"/api/standings/{GAME}"),
        ):
            fetch(target)  # warm: templates compiled, connection open
            page, raw = alternate(
                lambda target=target: fetch(target), lambda: raw_standings_ms(path, 50), runs
            )
            found.append(Row("web", f"{label}, {size}", "ms", page, "raw SQL, 50 rows", raw,
                             goal="< 200 ms", met=page.median < 200))  # fmt: skip
        connection.close()
        if shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER):
            found.append(_in_chromium(site.url, size, runs))
    finally:
        site.stop()
        db.close()
        shutil.rmtree(folder, ignore_errors=True)
    return found


def _in_chromium(url: str, size: str, runs: int) -> Row:
    sys.path.insert(0, str(Path(__file__).parent.parent / "tests" / "web"))
    from web_support import start_chromium

    browser = start_chromium()
    try:
        browser.get(f"{url}/standings/{GAME}")

        def load() -> float:
            browser.get(f"{url}/standings/{GAME}")
            timing = browser.execute_script(
                "const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime"
            )
            return float(timing)

        def blank() -> float:
            tick = time.perf_counter()
            browser.get("about:blank")
            return (time.perf_counter() - tick) * 1000

        page, empty = alternate(load, blank, runs)
    finally:
        browser.quit()
    return Row("web", f"standings page load in Chromium (to the load event), {size}", "ms", page,
               "about:blank through the driver", empty, goal="< 200 ms", met=page.median < 200)  # fmt: skip


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "the website at scale")
