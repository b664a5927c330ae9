"""kingmaker.ladder: persistence, ratings and league schedules (no gRPC here).

Start with ``db.open_database``; then ``bots``, ``leagues``, ``matches`` and ``standings`` hold the
calls the server and the CLI make. docs/ladder.md describes the schema and the policies.
"""
