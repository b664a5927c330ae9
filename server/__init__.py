"""kingmaker.server: the referee, the gRPC services and the command line."""
