"""Ratings and standings: TrueSkill settings and updates (``ratings``), the rows a rated match
writes (``rating_rows``) and the standings read from them (``standings``).

It may import ``storage`` and the shared values (``records``, ``errors``); everything that rates or
ranks imports it.
"""
