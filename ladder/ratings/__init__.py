"""Ratings and standings: TrueSkill settings and updates (``ratings``), the rows a rated match
writes, rating and history (``rating_rows``), and the standings read from them (``standings``).

May import: ``storage`` and the shared values (``records``, ``errors``).
"""
