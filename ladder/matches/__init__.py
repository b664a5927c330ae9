"""Matches, their results and logs: scheduling one (``matches``, ``match_setup``), writing its
result (``matches``), reading it back (``match_reads``, ``history``), the seats' logs and
timings (``seat_logs``, ``compact_logs``, ``think_times``), faults and suspensions (``faults``,
``fault_counts``), a bot's figures over its matches (``bot_stats``) and what may be shown while a
seed twin is unplayed (``secrecy``).

It may import ``bots``, ``pairing``, ``ratings``, ``storage`` and the shared values; leagues and
competitions import it.
"""
