"""Where matches execute: in the server's own loop, in worker processes, or on Ray nodes.

Owns the executor interface and its local form (``executors``), the worker processes
(``process_executor``, ``process_worker``), the Ray executor and its cluster (``ray_executor``,
``ray_cluster``) and what runs on a Ray node (``match_host``).

May import: ``server.refereeing``, ``server.seats``, ``server.building`` (a node fetches built
folders), ``server.jail`` and the process's helpers (``live``, ``loop_lag``, ``malloc``); never
the scheduler or the services, which use it.
"""
