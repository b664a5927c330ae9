"""What plays next: the leagues' runners, the rated matches they claim, and A/B duels.

Owns the league runner (``scheduler``), claiming and recording rated matches (``rated``) and
the duels between two versions of a bot (``duels``, with the room their seeds wait for:
``duel_room``).

May import: ``server.execution``, ``server.refereeing`` and ``server.seats``; never the
services or the process, which start it.
"""
