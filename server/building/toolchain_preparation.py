"""Toolchain caches prepared ahead of the first build, and which are ready.

A language's cache (``toolchain_caches``) is otherwise prepared at that language's first build,
which waits for it: Go's takes ~20 s of CPU, minutes on a loaded machine. ``kingmaker serve
--prepare-toolchains`` prepares every installed language's cache in the background as the server
starts, without delaying its serving (``prepare_ahead``); a build that comes meanwhile waits for
the preparation under way, as it would have run it. The server's start-up lines and ``kingmaker
doctor`` say which caches are ready (``cache_states``): a cache is ready when it was prepared from
the kit this server writes now (a new kit or contract needs a new one).

Read ``toolchain_caches`` first.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kingmaker.kits.languages import LANGUAGES, check
from kingmaker.server.building import builds
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.toolchain_caches import ENVIRONMENT, SEEDS, caches_beside
from kingmaker.server.jail.sandbox import SandboxPolicy

NOT_PREPARED = "not prepared"
WHEN_NOT_PREPARED = (
    "a cache not prepared is prepared at its language's first build, which waits for it; "
    "`kingmaker serve --prepare-toolchains` prepares them ahead"
)


@dataclass(frozen=True)
class CacheState:
    """One language's cache on this server, in words."""

    language: str
    ready: bool
    words: str
    """"ready", or why not ("not prepared", "off (…)", "failed: …")."""


def cache_languages() -> list[str]:
    """The languages whose builds start from a prepared cache."""
    return list(SEEDS)


def cache_states(
    store_root: Path, languages: Sequence[str] | None = None, temp_root: Path | None = None
) -> list[CacheState]:
    """Each language's cache beside the built folders in ``store_root``: ready or why not (each
    kit whose key is read is written in ``temp_root``, see ``kit_key``)."""
    caches = caches_beside(store_root)
    states = []
    for language in cache_languages() if languages is None else languages:
        if caches is None:
            states.append(CacheState(language, False, f"off ({ENVIRONMENT}=off)"))
        elif language in caches.failed:
            states.append(CacheState(language, False, f"failed: {caches.failed[language]}"))
        elif caches.prepared(language, kit_key(language, temp_root)) is not None:
            states.append(CacheState(language, True, "ready"))
        else:
            states.append(CacheState(language, False, NOT_PREPARED))
    return states


def kit_key(language: str, temp_root: Path | None = None) -> str:
    """The key of the cache a build of ``language`` starts from now: its kit's hash. The kit is
    written in ``temp_root`` (a server's run folder: one killed meanwhile leaves it where the next
    server's start clears it; ``None``: the temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="kingmaker-cache-", dir=temp_root) as work:
        return builds.write_cache_kit(Path(work), language)[1]


def installed(language: str) -> str:
    """Why ``language``'s cache cannot be prepared here ("": its toolchain is installed)."""
    known = next((known for known in LANGUAGES if known.name == language), None)
    if known is None:
        return ""
    readiness = check(known)
    return "" if readiness.ready else f"no {language} toolchain here ({readiness.detail})"


async def prepare_ahead(
    store: BuildStore,
    sandbox: SandboxPolicy,
    temp_root: Path | None,
    say: Callable[[str], None],
    languages: Sequence[str] | None = None,
) -> None:
    """Prepare each language's cache that is not ready and whose toolchain is installed, one after
    the other, saying how each went (one line each); a failure is said and leaves the others."""
    for state in await asyncio.to_thread(cache_states, store.root, languages, temp_root):
        if state.words != NOT_PREPARED:  # (ready, off, or failed in this process: not tried again)
            continue
        missing = await asyncio.to_thread(installed, state.language)
        if missing:
            say(f"{state.language} toolchain cache not prepared: {missing}")
            continue
        say(f"{state.language} toolchain cache: preparing in the background")
        prepared = await builds.prepared_cache(state.language, store, sandbox, temp_root)
        caches = caches_beside(store.root)
        if prepared.folder is None or caches is None:
            why = caches.failed.get(state.language, "") if caches is not None else "caches are off"
            say(f"{state.language} toolchain cache not prepared: {why}; its builds go on without it")
            continue
        clock = caches.spent.get(state.language)
        took = f" ({clock.cpu_seconds:.0f} CPU-s, {clock.wall_seconds:.0f} s)" if clock is not None else ""
        say(f"{state.language} toolchain cache: ready{took}")


def states_line(states: Sequence[CacheState], preparing: bool) -> str:
    """One start-up line: each language's cache state, and what becomes of those not prepared."""
    line = "toolchain caches: " + "; ".join(f"{state.language} {state.words}" for state in states)
    if any(state.words == NOT_PREPARED for state in states):
        line += " (preparing them in the background)" if preparing else f" ({WHEN_NOT_PREPARED})"
    return line
