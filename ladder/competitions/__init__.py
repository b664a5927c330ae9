"""Competitions: a season on one game with entries, a deadline, finals and a winner. Creating,
entering and reading one (``competitions``), its phases and their decisions
(``competition_phases``), the finals' formats (``competition_finals``, ``brackets``,
``competition_swiss``, ``competition_tiers``) and their results (``competition_results``), the rows
and plain values it returns (``competition_rows``, ``competition_records``) and its clock
(``competition_clock``).

May import: every other part of the ladder (it is the top); only the server imports it.
"""
