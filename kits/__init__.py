"""Starter kits: a random bot for every game in seven languages, written by `kingmaker init`.

Each folder beside this file (``cpp/``, ``go/``, ...) is one kit: the files `init` copies into
the author's folder, placeholders such as ``{{name}}`` filled in. ``languages`` is the table of
each language's toolchain (what `kingmaker doctor` probes, CI installs and docs/languages.md
lists); ``starter`` writes a kit; ``manifest`` reads a bot folder's ``kingmaker.toml``;
``json_types`` generates the JSON-lines kit's typed structures from the contract.
"""
