"""Building: a submitted folder turned into a runnable one, inside the jail.

Owns the archive of a submission (``submission_archive``) and its bounds
(``submission_limits``), the bot's manifest (``manifest``), the build itself (``builds``) and
the store of built folders by content hash (``build_store``).

May import: ``server.jail`` and the process's own helpers (``server.packing``); never the
referee, the scheduler or the services. What a build is *for* (validation, an A/B duel, the
version's activation) is ``server.new_versions``.
"""
