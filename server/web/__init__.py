"""The read-only website over the ladder database: standings, bots, leagues and match replays
with the board drawn for each game, and a JSON API beside every page (docs/web.md).

Read ``app.py`` first (routes), then ``queries.py`` (what each page shows) and ``replay.py``.

It reads the ladder database and the server's live frames (``server.live``); the authors'
console (``console*``) acts through the server's Admin API with the signed-in author's token,
and bounds an upload by the server's archive limits (``building.submission_limits``) before it
sends it; beside a replay's steps, a signed-in author's own bots' stderr comes the same way
(``own_output``). Nothing else of the server: it may run as a process of its own (``kingmaker web``).
"""
