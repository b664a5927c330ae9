"""The read-only website over the ladder database: standings, bots, leagues and match replays
with the board drawn for each game, and a JSON API beside every page (docs/web.md).

Read ``app.py`` first (routes), then ``queries.py`` (what each page shows) and ``replay.py``.
"""
