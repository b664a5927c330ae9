"""Bot tokens: 256 random bits, shown once, stored only as a hash, compared in constant time.

A token is ``km_`` followed by 43 URL-safe characters (32 bytes from ``secrets``). The database
keeps its SHA-256: a plain fast hash is enough because the token is random and long (a slow
password hash only helps against guessable secrets), and it lets authentication find the bot by an
indexed column. The stored hash is then compared with ``hmac.compare_digest`` anyway, so no
comparison this module makes leaks timing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "km_"
TOKEN_BYTES = 32


def new_token() -> str:
    return PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored_hash)
