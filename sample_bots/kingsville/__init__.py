"""Sample bots for Kingsville."""
