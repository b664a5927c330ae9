"""A new version's way to the ladder: its build, its validation against random bots and the
optional A/B duel against the active version, then its activation or rejection.

Owns the pipeline of a submission (``submissions``), the validation matches
(``version_checks``) and the A/B gate (``ab_gate``: its test and its words; ``ab_duels``: its
games side by side).

May import: ``server.building``, ``server.scheduling`` (an A/B duel is a league of two),
``server.refereeing``, ``server.seats`` and ``server.jail``; never the services or the process.
"""
