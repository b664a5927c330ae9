"""Starter kits: a random bot for every game in seven languages, written by `kingmaker init`.

Each folder beside this file (``cpp/``, ``go/``, ...) is one kit: the files `init` copies into
the author's folder, with ``{{name}}`` and ``{{games}}`` filled in. ``languages`` names each
language's toolchain (what `kingmaker doctor` probes and docs/languages.md lists); ``starter``
writes a kit; ``manifest`` reads a bot folder's ``kingmaker.toml``.
"""
