"""``python -m kingmaker``: the same as the ``kingmaker`` command."""

from kingmaker.server.cli import main

main()
