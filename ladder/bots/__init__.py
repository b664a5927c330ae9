"""Bots, their authors and versions: registering, editing and disabling bots (``bots``), authors
and their bounds (``authors``, ``author_bounds``), tokens (``tokens``), submitted versions and
which one plays (``versions``, ``version_activation``, ``pinned_versions``), and which bots may
enter a game (``entrants``); a person's seat row (``persons``).

May import: ``pairing`` (a new bot or version starts level with its field), ``ratings``,
``storage`` and the shared values.
"""
