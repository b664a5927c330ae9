"""Deliberately faulty bots: the adversaries the referee's tests play against.

Each is a runnable file that misbehaves in one documented way; ``FAULT_AFTER`` (environment,
default 2) says how many decisions it plays well first, so a fault lands mid-match.
``misbehaving.py KEY [--json-lines]`` plays any row of ``server/refereeing/misbehaviour.py``
(docs/protocol.md's misbehaviour table) over gRPC or behind the bridge: the conformance suite's
adversary.
"""
