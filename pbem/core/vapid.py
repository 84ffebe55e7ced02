"""The service's VAPID key (RFC 8292), which signs every Web Push: read from
``PBEM_VAPID_PRIVATE_KEY`` as the base64url of the P-256 private key's 32 bytes
(what the common web-push tools print) or as PEM, checked at start-up, and
made anew by ``pbem admin vapid``.  Browsers subscribe with its public key
(``GET /api/v1/push/key``), the uncompressed point in base64url.  The keys are
``cryptography``'s; the signing is py-vapid's (:mod:`pbem.mail.push_posts`)."""

from __future__ import annotations

import base64
import binascii
from email.utils import parseaddr
from functools import lru_cache
from typing import Any, Mapping

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

_RAW_LENGTH = 32


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Base64url with or without its padding (``binascii.Error`` if it is not)."""
    text = text.strip()
    if not text or any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=" for c in text):
        raise binascii.Error("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@lru_cache(maxsize=4)
def private_key(text: str) -> ec.EllipticCurvePrivateKey:
    """The key the setting holds; ``ValueError`` saying why for one it does not."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
        except (ValueError, TypeError, UnicodeEncodeError) as e:
            raise ValueError(f"not a readable unencrypted PEM private key ({e.__class__.__name__})") from None
        if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
            raise ValueError("a PEM key, but not a P-256 (prime256v1) elliptic-curve key")
        return key
    try:
        raw = b64url_decode(text)
    except (binascii.Error, ValueError):
        raise ValueError("neither base64url nor PEM") from None
    if len(raw) != _RAW_LENGTH:
        raise ValueError(f"{len(raw)} bytes once decoded; a raw P-256 private key is {_RAW_LENGTH}")
    try:
        return ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
    except ValueError:
        raise ValueError("not a P-256 private key (zero, or not below the curve's order)") from None


def public_key(key: ec.EllipticCurvePrivateKey) -> str:
    """The public key as browsers take it (``applicationServerKey``): the
    uncompressed point, base64url."""
    return b64url(key.public_key().public_bytes(serialization.Encoding.X962,
                                                serialization.PublicFormat.UncompressedPoint))


def raw_private(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.private_numbers().private_value.to_bytes(_RAW_LENGTH, "big"))


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def configured(config: Mapping[str, Any]) -> ec.EllipticCurvePrivateKey | None:
    """The configured key (``None``: push is off)."""
    text = str(config.get("VAPID_PRIVATE_KEY") or "").strip()
    return private_key(text) if text else None


def subject(config: Mapping[str, Any]) -> str:
    """Whom the push services may write to about our pushes (the VAPID ``sub``):
    ``PBEM_VAPID_SUBJECT``, else ``mailto:`` the address mail comes from."""
    given = str(config.get("VAPID_SUBJECT") or "").strip()
    if given:
        return given
    return "mailto:" + (parseaddr(str(config.get("MAIL_FROM") or ""))[1] or "postmaster@localhost")


def problem(config: Mapping[str, Any]) -> str | None:
    """What is wrong with the push settings, naming the variable (``None``: nothing)."""
    try:
        configured(config)
    except ValueError as e:
        return (f"PBEM_VAPID_PRIVATE_KEY is not a usable VAPID key: {e}; give the base64url of the P-256 private "
                "key's 32 bytes or a PEM key (pbem admin vapid makes one)")
    given = str(config.get("VAPID_SUBJECT") or "").strip()
    if given and not (given.startswith("mailto:") and "@" in given or given.startswith("https://")):
        return f"PBEM_VAPID_SUBJECT={given!r}: expected mailto:ADDRESS or an https:// address of the operator"
    return None
