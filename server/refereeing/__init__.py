"""Refereeing one match: asking the seats, checking every reply, applying the joint action and
keeping its result until it is stored.

Owns the referee (``referee``) and the requests it sends, each built once (``requests``),
playing one match with leased seats (``matches``), storing a result whatever the database does
(``results``), the matches kept without storing (``archive``) and each step's slice of a managed
bot's stderr (``step_stderr``).

May import: ``server.seats``, ``server.jail`` (a launched bot's CPU clock) and ``server.live``;
never the executors, the scheduler or the services, which use it.
"""
