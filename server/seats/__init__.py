"""The seats of a match: the bots that fill them and the clock each seat plays on.

Owns the bot-facing Arena service (``arena``: the door a bot's stream comes through), the
sessions of connected bots (``sessions``), checking their hellos' tokens in batches
(``token_checks``), finding a bot for each seat and starting managed
ones (``roster``), which remote bots are here (``presence``), the seat's clock (``deadlines``)
and holding matches back while the server lags (``admission``).

May import: ``server.building`` (a managed bot runs a built folder), ``server.jail`` and the
process's helpers (``live``, ``loop_lag``, ``grpc_abort``); never the referee, which uses it.
"""
