"""Runnable sample bots: a random one for every game, stronger ones per game, faulty ones for the tests."""
