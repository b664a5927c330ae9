"""The authors' console in Chromium, with two authors: ann signs in, uploads a folder, watches its
build log arrive while it builds, reads her own seat's stderr in a match against ben's bot, and
reaches nothing of ben's (pages and JSON); ben, signed in, reads his and not hers. The session
cookie is HttpOnly and SameSite=Strict, out of the page's scripts' reach.

With ``KINGMAKER_CONSOLE_SCREENSHOTS=FOLDER`` the test also saves docs/web-console-*.png there."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner
from web_support import chromium_available, sign_in, start_chromium, wait_for

from kingmaker.ladder.bots import authors, bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.server.web.serve import BackgroundWebServer

pytestmark = [
    pytest.mark.skipif(not chromium_available(), reason="needs chromium and chromium-driver"),
    pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail"),
]

ANN_BOT = """
import sys
from kingmaker.sdk import Bot, Request, run


class Chatty(Bot):
    def act(self, request: Request) -> int:
        print(f"ann's bot weighs request {request.request_id}", file=sys.stderr, flush=True)
        return 0


if __name__ == "__main__":
    run(Chatty())
"""
ANN_MANIFEST = """
run = "python bot.py"
build = 'echo "compiling part 1"; sleep 4; echo "compiling part 2"; sleep 4; echo "linked"'
games = ["kingdoms"]
"""
BEN_BOT = """
import sys
from kingmaker.sdk import Bot, Request, run


class Secretive(Bot):
    def act(self, request: Request) -> int:
        print("ben's secret plan", file=sys.stderr, flush=True)
        return len(request.legal_actions) - 1


run(Secretive())
"""


@pytest.fixture
def world(server: BackgroundServer, tmp_path: Path) -> Iterator[dict[str, Any]]:
    db = server.server.db
    _, ann = authors.add_author(db, "ann")
    ben_author, ben = authors.add_author(db, "ben")
    script = tmp_path / "ben_bot.py"
    script.write_text(BEN_BOT)
    bots.register_bot(db, "benbot", ["kingdoms"], [sys.executable, str(script)], author_id=ben_author.id)
    folder = tmp_path / "annbot"
    folder.mkdir()
    (folder / "bot.py").write_text(ANN_BOT)
    (folder / "kingmaker.toml").write_text(ANN_MANIFEST)
    site = BackgroundWebServer(db, admin_address=server.address)
    try:
        yield {"site": site.url, "ann": ann, "ben": ben, "folder": folder, "server": server}
    finally:
        site.stop()


def log_showing(text: str) -> Any:
    """A condition: the version's page shows ``text`` in its build log; it gives the status and
    the log as read at one instant (the page's script changes both as the build goes on)."""

    def condition(driver: Any) -> tuple[str, str] | None:
        status, log = driver.execute_script(
            "const status = document.getElementById('version-status');"
            "const log = document.getElementById('build-log');"
            "return status && log ? [status.textContent, log.textContent] : ['', ''];"
        )
        return (status, log) if text in log else None

    return condition


def json_of(driver: Any, site: str, path: str) -> tuple[int, Any]:
    """A JSON twin fetched by the page itself (with its cookie): (status, body)."""
    answer = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0]).then(async r => done([r.status, await r.text()]));",
        f"{site}{path}",
    )
    return answer[0], json.loads(answer[1])


def screenshot(driver: Any, name: str) -> None:
    folder = os.environ.get("KINGMAKER_CONSOLE_SCREENSHOTS")
    if folder:
        from make_screenshots import save  # the docs' other screenshots' palette

        save(driver.get_screenshot_as_png(), Path(folder) / f"web-console-{name}.png")


def test_two_authors_in_the_console(world: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    site = world["site"]
    driver = start_chromium(1200, 1000)
    try:
        sign_in(driver, site, world["ann"])
        cookie = driver.get_cookie("kingmaker_console")
        assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict", cookie
        assert "kingmaker_console" not in driver.execute_script("return document.cookie")
        screenshot(driver, "home")

        # Upload the folder; the version's page shows the build's log while it builds.
        driver.find_element(By.ID, "upload-bot").send_keys("annbot")
        driver.find_element(By.ID, "upload-folder").send_keys(str(world["folder"]))
        driver.find_element(By.ID, "upload-send").click()
        status, log = wait_for(driver, log_showing("compiling part 1"))
        assert status == "building"
        assert "linked" not in log.splitlines(), "it came as it was written"
        screenshot(driver, "build")
        # Once the version is final the page reloads itself to show its whole record: wait for
        # that page, not for elements of the live one, which the reload throws away.
        wait_for(driver, lambda d: d.find_element(By.ID, "live").get_attribute("data-final") == "yes")
        assert driver.find_element(By.ID, "version-status").text == "active"
        assert "linked" in driver.find_element(By.ID, "build-log").text.splitlines()
        validated = driver.find_elements(By.CSS_SELECTOR, "#validation tbody tr")
        assert validated and all(" finished " in f" {row.text} " for row in validated), "its validation"

        # A match of ann's bot against ben's, played by the admin.
        server = world["server"]
        run = CliRunner().invoke(
            app,
            ["match", "run", "kingdoms", "--bot", "annbot", "--bot", "benbot", "--seed", "3",
             "--server", server.address, "--admin-token", server.admin_token],
        )  # fmt: skip
        assert run.exit_code in (0, 3), run.stdout + run.stderr
        match_id = run.stdout.split(" match ", 1)[1].split()[0]

        driver.get(f"{site}/console/bots/annbot")
        driver.find_element(By.CSS_SELECTOR, f"#matches tr[data-match='{match_id}'] a").click()
        seat = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "section.seat pre.stderr"))[0].text
        assert "ann's bot weighs request" in seat
        assert "ben's secret plan" not in driver.page_source
        screenshot(driver, "match")

        # Nothing of ben's, by page or by JSON.
        for path in ("/console/bots/benbot", f"/console/bots/benbot/matches/{match_id}",
                     "/console/bots/benbot/versions/1"):  # fmt: skip
            driver.get(f"{site}{path}")
            assert "you have no bot named 'benbot'" in driver.page_source, path
            assert "ben's secret plan" not in driver.page_source
        for path in ("/api/console/bots/benbot", f"/api/console/bots/benbot/matches/{match_id}"):
            status, body = json_of(driver, site, path)
            assert status == 404 and "ben's secret plan" not in json.dumps(body), (path, body)
        status, mine = json_of(driver, site, "/api/console")
        assert status == 200 and [bot["name"] for bot in mine["bots"]] == ["annbot"]

        # Signed out: the console asks to sign in again, its JSON says 401.
        driver.get(f"{site}/console")
        driver.find_element(By.ID, "sign-out").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "sign-in"))
        assert json_of(driver, site, "/api/console")[0] == 401

        # ben reads his own seat's stderr in the same match, and not ann's.
        sign_in(driver, site, world["ben"])
        driver.get(f"{site}/console/bots/benbot/matches/{match_id}")
        page = driver.find_element(By.CSS_SELECTOR, "section.seat pre.stderr").text
        assert "ben's secret plan" in page
        assert "ann's bot weighs" not in driver.page_source
        driver.get(f"{site}/console/bots/annbot/versions/1")
        assert "compiling part 1" not in driver.page_source, "ann's build log is hers"
    finally:
        driver.quit()
