"""kingmaker.ladder: persistence, ratings and league schedules (no gRPC here).

Its parts, from the bottom up (each imports only those below it; ``.importlinter`` checks it):

- the shared values, loose in this folder: ``errors``, ``names``, ``bounds``, ``outcomes``,
  ``step_output`` and ``records`` (the plain values every part returns to the server);
- ``storage/``: the database, its tables and migrations;
- ``ratings/``: TrueSkill and the standings;
- ``pairing/``: schedules and a league's pool: who meets whom;
- ``bots/``: bots, authors, tokens and versions;
- ``matches/``: scheduling a match, its result, its logs, faults and secrecy;
- ``leagues/``: leagues, their life and membership;
- at the top, the referee's two calls per match, loose here (``claims``: take the next match;
  ``result_batch``: write finished results), and ``competitions/``.

Start with ``storage.db.open_database``; docs/ladder.md describes the schema and the policies, and
docs/architecture.md walks the tree.
"""
