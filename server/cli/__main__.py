"""``python -m kingmaker.server.cli``: the same as the ``kingmaker`` command."""

from kingmaker.server.cli import main

main()
