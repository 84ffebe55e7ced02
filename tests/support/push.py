"""A browser's side of Web Push for the tests: a subscription's own key pair
and secret (made with ``cryptography``, as a browser makes them), its JSON as
``PushSubscription.toJSON()`` gives it, and the real decryptor (http-ece,
RFC 8291 aes128gcm) that reads what the service sent to it; and a VAPID key
for the service."""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def vapid_key() -> str:
    """A new VAPID private key as PBEM_VAPID_PRIVATE_KEY takes it (raw, base64url)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


class Browser:
    """One browser's subscription: its P-256 key pair and 16-byte auth secret."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)}}

    def read(self, body: bytes) -> dict[str, Any]:
        """Decrypt a push's body as the browser does, and parse its JSON."""
        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        return json.loads(plain)  # type: ignore[no-any-return]
