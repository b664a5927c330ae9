"""The gRPC servicers: thin translations between the wire and the referee, pool and ladder.

The Admin API (``admin``: matches, bots, versions, leagues, authors, one permission table in
``permissions``) and the submissions service are what the command line and the website reach
the server through. (The bot-facing Arena is ``server.seats.arena``: a Ray node serves it too.)

May import: every subsystem below it (``new_versions``, ``scheduling``, ``execution``,
``refereeing``, ``seats``, ``building``, ``jail``) and the process's helpers; never ``app``,
``cli`` or ``web``.
"""
