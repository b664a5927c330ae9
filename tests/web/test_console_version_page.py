"""A version's page in the console says when it was submitted, built (and how long that took)
and started to play (issue 47: no build time nor timestamps), and an upload's notice names the
version without its status: "submitted newbot version 1: building" stayed on the page, above
the live status, through validation."""

from __future__ import annotations

import http.client
import re
from typing import Any

from test_console_sessions import Browser, site  # noqa: F401  (the fixture)

from kingmaker.ladder.bots import authors, versions

TIME = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"


def test_the_version_page_gives_its_times(site: dict[str, Any]) -> None:  # noqa: F811
    db = site["db"]
    ann = authors.get_author(db, "ann").id
    first = versions.start_submission(db, "newbot", ["kingdoms"], "a" * 64, author_id=ann)
    versions.mark_built(db, "newbot", first.number, "h" * 64, ["true"], "grpc", {}, "built")
    versions.activate(db, "newbot", first.number, [])
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])
    status, _, page = browser.request("GET", f"/console/bots/newbot/versions/{first.number}")
    assert status == 200, page
    line = page.split('<p id="version-times">', 1)[1].split("</p>", 1)[0]
    assert re.fullmatch(
        rf"submitted {TIME} · built {TIME} \(\d+ s after its submission\) · played from {TIME}", line
    ), line


def test_an_uploads_notice_does_not_freeze_its_status(site: dict[str, Any]) -> None:  # noqa: F811
    browser = Browser(site["url"])
    browser.sign_in(site["ann"])
    boundary = "kingmakerboundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{browser.csrf()}\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="bot"\r\n\r\nnewbot\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="games"\r\n\r\nkingdoms\r\n',
        f'--{boundary}\r\nContent-Disposition: form-data; name="folder"; filename="newbot/bot.py"\r\n'
        "Content-Type: text/x-python\r\n\r\nprint(1)\r\n",
        f"--{boundary}--\r\n",
    ]
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=120)
    connection.request(
        "POST", "/console/upload", body="".join(parts).encode(),
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "Cookie": browser.cookie},
    )  # fmt: skip
    response = connection.getresponse()
    response.read()
    assert response.status == 303, response.status
    location = response.getheader("location", "")
    assert re.fullmatch(r"/console/bots/newbot/versions/\d+", location), location
    _, _, page = browser.request("GET", location)
    notice = page.split('<p class="notice" id="notice">', 1)[1].split("</p>", 1)[0]
    assert re.fullmatch(r"submitted newbot version \d+", notice), notice
