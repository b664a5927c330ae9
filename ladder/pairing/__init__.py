"""Who meets whom: the league schedules (``schedules/``: round robin, gauntlet, matchmaking and
the rating pool they draw from), a league's pool of contenders as the database keeps it
(``league_pool``) and the choice of free bots first (``free_first``).

May import: ``ratings``, ``storage`` and the shared values (``records``, ``errors``).
"""
