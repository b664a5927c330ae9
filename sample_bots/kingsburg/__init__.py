"""Sample bots for Kingsburg (the random bot for every game is ``sample_bots/random_bot.py``)."""
