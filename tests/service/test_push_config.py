"""The VAPID key's configuration: a raw or PEM key is taken, anything else
refused at start-up naming the variable; ``pbem admin vapid`` prints a key
that is taken and its public key; the subject defaults to the sender's
address; PBEM_WEBHOOK_ALLOW may name this machine when the base URL does."""

from __future__ import annotations

import io
import re
from argparse import Namespace

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from pbem.core import vapid
from pbem.core.config import UnsafeConfig, check_safe
from pbem.ops import admin_cli
from tests.support.config import SECRET


def _config(**extra: object) -> dict[str, object]:
    return {"SECRET_KEY": SECRET, "BASE_URL": "http://127.0.0.1:5000", **extra}


def test_pbem_admin_vapid_prints_a_key_the_service_takes() -> None:
    out = io.StringIO()
    assert admin_cli.run(Namespace(admin_command="vapid"), lambda: pytest.fail("no context needed"), out) == 0
    printed = re.search(r"PBEM_VAPID_PRIVATE_KEY=(\S+)\n# public key .*: (\S+)", out.getvalue())
    assert printed, out.getvalue()
    check_safe(_config(VAPID_PRIVATE_KEY=printed.group(1)))
    key = vapid.configured({"VAPID_PRIVATE_KEY": printed.group(1)})
    assert key is not None and vapid.public_key(key) == printed.group(2)


def test_a_pem_key_is_taken_too() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    check_safe(_config(VAPID_PRIVATE_KEY=pem))
    taken = vapid.configured({"VAPID_PRIVATE_KEY": pem})
    assert taken is not None and vapid.public_key(taken) == vapid.public_key(key)


@pytest.mark.parametrize("value", [
    "not a key!", "AAAA", vapid.b64url(b"\0" * 32), vapid.b64url(b"\xff" * 32),
    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
    ec.generate_private_key(ec.SECP384R1()).private_bytes(serialization.Encoding.PEM,
                                                          serialization.PrivateFormat.PKCS8,
                                                          serialization.NoEncryption()).decode()])
def test_a_malformed_key_is_refused_naming_the_variable(value: str) -> None:
    with pytest.raises(UnsafeConfig, match="PBEM_VAPID_PRIVATE_KEY"):
        check_safe(_config(VAPID_PRIVATE_KEY=value))
    with pytest.raises(UnsafeConfig, match="PBEM_VAPID_PRIVATE_KEY"):
        check_safe({**_config(VAPID_PRIVATE_KEY=value), "DEMO": True})  # the demo too


def test_without_a_key_push_is_off_and_the_subject_defaults_to_the_sender() -> None:
    check_safe(_config())
    assert vapid.configured(_config()) is None
    assert vapid.subject({"MAIL_FROM": "Clans by Mail <clans@clans.example>"}) == "mailto:clans@clans.example"
    assert vapid.subject({"VAPID_SUBJECT": "https://clans.example/contact"}) == "https://clans.example/contact"
    with pytest.raises(UnsafeConfig, match="PBEM_VAPID_SUBJECT"):
        check_safe(_config(VAPID_SUBJECT="operator@clans.example"))


def test_a_loopback_base_url_may_allow_this_machine_for_webhooks_and_push() -> None:
    check_safe(_config(WEBHOOK_ALLOW="127.0.0.1,localhost"))
    with pytest.raises(UnsafeConfig, match="PBEM_WEBHOOK_ALLOW"):
        check_safe(_config(WEBHOOK_ALLOW="127.0.0.1", BASE_URL="https://clans.example", SMTP_HOST="mail",
                           BROKER_URL="redis://127.0.0.1:6379/0"))
