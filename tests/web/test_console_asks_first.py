"""Rotating a token ends every session made with the old one: the console asks first (issue 47,
finding 7; before, one click rotated it). The form carries its question, and the page loads the
script that asks it before the form is sent. An empty log is no black bar."""

from __future__ import annotations

import re

from test_console_bot_state import signed_in  # noqa: F401  (a fixture)
from test_console_sessions import Browser

from support import REPO

STATIC = REPO / "server" / "web" / "static"


def test_the_rotate_form_asks_before_it_is_sent(signed_in: tuple[Browser, object, int]) -> None:  # noqa: F811
    browser, _, _ = signed_in
    _, _, page = browser.request("GET", "/console")
    form = re.search(r'<form [^>]*id="rotate"[^>]*>', page)
    assert form is not None, page
    assert 'data-confirm="Rotate your token? The one you use now stops working' in form.group(0)
    assert '<script src="/static/confirm.js"></script>' in page
    script = (STATIC / "confirm.js").read_text()
    assert 'querySelectorAll("form[data-confirm]")' in script and "preventDefault" in script
    assert browser.request("GET", "/static/confirm.js")[0] == 200


def test_an_empty_log_is_not_drawn() -> None:
    assert "pre.log:empty { display: none; }" in (STATIC / "site.css").read_text()
