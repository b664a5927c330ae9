"""Sample bots for King's Road (the random bot for every game is ``sample_bots/random_bot.py``)."""
