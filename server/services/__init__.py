"""The gRPC servicers: thin translations between the wire and the referee, pool and ladder."""
