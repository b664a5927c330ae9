"""Leagues: creating and running them (``leagues``), their life from open to finished
(``league_lifecycle``), who plays in a ladder league (``membership``), how far a league has got
(``league_counts``) and which waiting matches a claim takes (``claim_window``).

May import: ``matches``, ``bots``, ``pairing``, ``ratings``, ``storage`` and the shared values.
"""
