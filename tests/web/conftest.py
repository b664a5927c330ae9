"""What the website tests share: one headless Chromium per test module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from web_support import start_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = start_chromium()
    try:
        yield driver
    finally:
        driver.quit()
