"""Matches, their results and logs: scheduling one (``matches``, ``match_setup``), writing its
result in one transaction (``matches``), locking a match and its league league-first
(``locks``), reading it back (``match_reads``, ``history``), the
seats' logs and timings (``seat_logs``, ``compact_logs``, ``think_times``), faults and the
suspensions they bring (``faults``, ``fault_counts``), a bot's figures over its matches
(``bot_stats``) and what may be shown while a seed twin is unplayed (``secrecy``).

May import: ``bots``, ``pairing``, ``ratings``, ``storage`` and the shared values.
"""
