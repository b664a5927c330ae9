"""The order pytest-xdist hands the tests out in: the folders whose tests only compute, in the test
process itself, go last (the games, the environments, the SDK).

On two cores the suite is bound by CPU, except where tests wait: on a browser, a bot's start, a
server's deadline. Handed out alphabetically, the end of a run was ``tests/web``'s browser tests,
which wait, so a run's last minute or two left the cores a third to a half idle. The tests that
only compute come in hundreds of small pieces, each a fraction of a second: at the end, they keep
both cores busy until the last one, and every worker finishes within moments of the others.

Only whole modules move (the sort is stable), so a module's fixtures are set up as before; the
groups of ``xdist_group`` are handed out first whatever the order (``--dist loadgroup``)."""

from __future__ import annotations

import pytest

COMPUTE_ONLY = ("tests/games/", "tests/envs/", "tests/sdk/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.nodeid.startswith(COMPUTE_ONLY))
