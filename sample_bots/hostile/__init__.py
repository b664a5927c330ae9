"""Hostile bots: programs that attack the machine instead of playing, to prove the sandbox holds.

Each tries one thing as soon as it starts, prints one line saying how far it got (``hostile:``
followed by the outcome, to stderr, which the launcher keeps), and exits. Each also stops
itself at a safe bound, so that a sandbox that fails to contain it makes a test fail rather than
a shared machine suffer. The tests in tests/sandbox/ launch them and say which limit stopped them.
"""
