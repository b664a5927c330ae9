"""Bots, their authors and versions: registering and editing bots (``bots``), authors and their
bounds (``authors``, ``author_bounds``), tokens (``tokens``), submitted versions and which one plays
(``versions``, ``version_activation``, ``pinned_versions``), and which bots may enter a game
(``entrants``).

It may import ``pairing``, ``ratings``, ``storage`` and the shared values; matches, leagues and
competitions import it.
"""
