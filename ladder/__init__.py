"""kingmaker.ladder: persistence, ratings and league schedules."""
