"""Sample bots for Reiner Knizia's Kingdoms."""
