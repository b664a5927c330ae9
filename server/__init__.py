"""kingmaker.server: the referee, the gRPC services and the command line."""

import os

# The server forks bot processes from a process that runs gRPC threads. gRPC's fork handlers are
# only needed when a child goes on using gRPC objects inherited from the parent, which a bot
# never does (it execs at once), so turn them off: they only log warnings and slow each fork.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
