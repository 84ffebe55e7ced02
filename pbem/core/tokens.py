"""Seat and sign-in tokens.

A token is HMAC-SHA256(secret key, purpose + a random salt), 43 url-safe
characters.  Only the salt and the token's SHA-256 are stored: a copy of the
database alone opens no seat, and a worker holding the secret key can rebuild a
seat's link for every email without the token ever being written down.
Changing ``PBEM_SECRET_KEY`` therefore invalidates every link.

>>> salt = new_salt()
>>> token = derive("key", "seat", salt)
>>> len(token), digest(token) == digest(derive("key", "seat", salt))
(43, True)
>>> derive("other key", "seat", salt) == token
False
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,100}")


#: Lower-case letters and digits without the ones people confuse (l/1, o/0).
PUBLIC_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
PUBLIC_ID_LENGTH = 14  # 70 bits: nobody walks from one game to another
_PUBLIC_ID = re.compile(f"[{PUBLIC_ID_ALPHABET}]{{{PUBLIC_ID_LENGTH}}}")


def public_id() -> str:
    """A game's public address part, e.g. ``k3vx9q2mtr7hwa``."""
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(PUBLIC_ID_LENGTH))


def is_public_id(text: object) -> bool:
    return isinstance(text, str) and _PUBLIC_ID.fullmatch(text) is not None


def new_salt() -> str:
    return secrets.token_hex(16)


def derive(secret_key: str, purpose: str, salt: str) -> str:
    mac = hmac.new(secret_key.encode(), f"{purpose}|{salt}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def well_formed(token: object) -> bool:
    """Cheap shape check before any database look-up."""
    return isinstance(token, str) and _TOKEN.fullmatch(token) is not None
