"""kingmaker.server: the referee, the gRPC services and the command line.

Its subsystems, each a folder whose ``__init__`` says what it owns and may import, from the
bottom up: ``jail``, ``building``, ``seats``, ``refereeing``, ``execution``, ``scheduling``,
``new_versions``, then ``services`` (the gRPC API) and the process (``app``, ``background``);
``cli`` and ``web`` sit on top and reach the rest through the services. The modules left here
are the process's own: its start (``app``, ``background``), its home and addresses (``home``,
``locations``, ``addresses``), and small helpers every layer may use (``live``, ``loop_lag``,
``malloc``, ``packing``, ``grpc_abort``). ``.importlinter`` at the repository's root writes
these layers as contracts that CI checks.
"""

import os

# The server forks bot processes from a process that runs gRPC threads. gRPC's fork handlers are
# only needed when a child goes on using gRPC objects inherited from the parent, which a bot
# never does (it execs at once), so turn them off: they only log warnings and slow each fork.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
