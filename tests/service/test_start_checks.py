"""Start-up refuses settings that are unsafe in public (issue: safe to open to
the public): a missing, public or short secret key, a mailbox on a public
address, a public address with no mail transport."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.core.config import DEV_SECRET_KEY, UnsafeConfig, check_safe, is_loopback, load_config
from tests.support.config import SECRET

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = {"PBEM_BASE_URL": "https://clans.example", "PBEM_SMTP_HOST": "mail.example",
          "PBEM_BROKER_URL": "redis://redis.example:6379/0", "PBEM_SECRET_KEY": SECRET}


def config(**env: str) -> dict[str, object]:
    return load_config(environ={**PUBLIC, **env})


@pytest.mark.parametrize("key, named", [
    ("", "PBEM_SECRET_KEY is not set"),
    (DEV_SECRET_KEY, "PBEM_SECRET_KEY is the development value"),
    ("x" * 31, "PBEM_SECRET_KEY is 31 characters long"),
])
def test_a_bad_secret_key_is_refused_by_name(key: str, named: str) -> None:
    with pytest.raises(UnsafeConfig, match=named):
        check_safe(config(PBEM_SECRET_KEY=key))


def test_a_sound_public_configuration_starts() -> None:
    check_safe(config())
    check_safe(config(PBEM_SECRET_KEY="y" * 32))


def test_no_broker_for_a_public_address_is_refused() -> None:
    """Without one, mail would be built inside the request (a sign-in would take
    longer for an address that plays) and each process would count limits alone."""
    with pytest.raises(UnsafeConfig, match="PBEM_BROKER_URL is not set: a public service"):
        check_safe(config(PBEM_BROKER_URL=""))
    check_safe(config(PBEM_BROKER_URL="", PBEM_BASE_URL="http://127.0.0.1:5000"))


def test_no_mail_transport_for_a_public_address_is_refused() -> None:
    with pytest.raises(UnsafeConfig, match="PBEM_SMTP_HOST is not set: no mail transport"):
        check_safe(config(PBEM_SMTP_HOST=""))
    # On this machine only, mail may be caught in the database.
    check_safe(config(PBEM_SMTP_HOST="", PBEM_BASE_URL="http://127.0.0.1:5000"))


def test_the_mailbox_exists_only_on_a_loopback_address_or_in_the_demo() -> None:
    with pytest.raises(UnsafeConfig, match="PBEM_MAILBOX is on for the public base URL"):
        check_safe(config(PBEM_MAILBOX="1"))
    check_safe(config(PBEM_MAILBOX="1", PBEM_BASE_URL="http://localhost:8000"))
    # The demo (set by `pbem demo` itself, never by the environment) runs on defaults.
    check_safe(load_config({"DEMO": True}, environ={}))
    assert load_config(environ={"PBEM_DEMO": "1"}).get("DEMO") is None


@pytest.mark.parametrize("url", ["https://clans.exämple.org", "clans.example", "ftp://clans.example", "https://"])
def test_a_base_url_that_cannot_make_links_is_refused(url: str) -> None:
    with pytest.raises(UnsafeConfig, match="PBEM_BASE_URL="):
        check_safe(config(PBEM_BASE_URL=url))


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:5000", True), ("http://localhost", True), ("http://[::1]:8080/", True),
    ("http://127.8.9.10", True), ("https://clans.example", False), ("http://10.0.0.5", False),
    ("http://localhost.evil.example", False), ("http://0.0.0.0:5000", False),
])
def test_what_counts_as_loopback(url: str, local: bool) -> None:
    assert is_loopback(url) is local


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def test_the_worker_refuses_to_start_with_one_line_naming_the_variable(tmp_path: Path) -> None:
    """``celery -A worker`` imports worker.py, which builds the app: a refusal
    is one line on stderr and a non-zero exit, before any task could run."""
    env = _clean_env(PBEM_DATABASE_URL=f"sqlite:///{tmp_path / 'w.sqlite3'}",
                     PBEM_BASE_URL="https://clans.example", PBEM_SMTP_HOST="mail.example")
    done = subprocess.run([sys.executable, "-c", "import worker"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        "pbem: refusing to start: PBEM_SECRET_KEY is not set: set it to a random value of at least 32 "
        "characters (python -c 'import secrets; print(secrets.token_urlsafe(48))')"]


def test_the_cli_refuses_too(tmp_path: Path) -> None:
    env = _clean_env(PBEM_DATABASE_URL=f"sqlite:///{tmp_path / 'c.sqlite3'}",
                     PBEM_BASE_URL="https://clans.example", PBEM_SECRET_KEY=SECRET)
    done = subprocess.run([sys.executable, "-m", "pbem.cli", "export", "k3vx9q2mtr7hwa"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == ("pbem: refusing to start: PBEM_SMTP_HOST is not set: no mail transport "
                                   "for the public base URL https://clans.example")


@pytest.mark.parametrize("trust", ["authres", "authres:", "dkim:mx.example", "authres:mx example"])
def test_a_malformed_inbound_trust_is_refused(trust: str) -> None:
    with pytest.raises(UnsafeConfig, match="PBEM_INBOUND_TRUST="):
        check_safe(config(PBEM_INBOUND_TRUST=trust))
    check_safe(config(PBEM_INBOUND_TRUST="authres:mx.clans.example"))


def test_a_receiver_open_to_the_world_needs_a_trusted_mail_server_in_front() -> None:
    with pytest.raises(UnsafeConfig, match="PBEM_INBOUND_HOST=0.0.0.0 listens beyond this machine"):
        check_safe(config(PBEM_INBOUND_HOST="0.0.0.0"))
    check_safe(config(PBEM_INBOUND_HOST="0.0.0.0", PBEM_INBOUND_TRUST="authres:mx.clans.example"))
    check_safe(config(PBEM_INBOUND_HOST="127.0.0.1"))


@pytest.mark.parametrize("allow", ["localhost", "hooks.example, LocalHost", "foo.localhost", "127.0.0.1", "127.1",
                                   "2130706433", "10.0.0.5", "192.168.1.20", "169.254.169.254", "[::1]", "::1",
                                   "fd00::1", "0.0.0.0"])
def test_webhooks_to_this_machine_or_a_private_network_only_in_the_demo_or_the_tests(allow: str) -> None:
    """An allowed host skips the public-address check: any player could post into this network."""
    with pytest.raises(UnsafeConfig, match="PBEM_WEBHOOK_ALLOW"):
        check_safe(config(PBEM_WEBHOOK_ALLOW=allow))
    check_safe({**config(PBEM_WEBHOOK_ALLOW=allow), "TESTING": True})
    check_safe({**config(PBEM_WEBHOOK_ALLOW=allow, PBEM_BASE_URL="http://127.0.0.1:5000"), "DEMO": True})


def test_public_webhook_hosts_may_be_allowed() -> None:
    check_safe(config(PBEM_WEBHOOK_ALLOW="hooks.example.org, 93.184.215.14"))


@pytest.mark.parametrize("env, named", [
    ({"PBEM_CLOCK_SECONDS": "0.1"}, "PBEM_CLOCK_SECONDS=0.1: the clock runs every 0.5 to 3600 seconds"),
    ({"PBEM_CLOCK_SECONDS": "7200"}, "PBEM_CLOCK_SECONDS=7200.0"),
    ({"PBEM_MAIL_LEASE_SECONDS": "1"}, "PBEM_MAIL_LEASE_SECONDS=1.0: a worker's claim"),
    ({"PBEM_MAIL_LEASE_SECONDS": "90"}, "is not longer than a delivery may take"),
    ({"PBEM_PRESENCE_SECONDS": "5"}, "PBEM_PRESENCE_SECONDS=5.0: a player counts as present for 10 to 3600"),
    ({"PBEM_PRESENCE_SECONDS": "7200"}, "PBEM_PRESENCE_SECONDS=7200.0"),
    ({"PBEM_LOBBY_HOLD_HOURS": "0"}, "PBEM_LOBBY_HOLD_HOURS=0: a join holds a lobby seat for 1 to 720 hours"),
])
def test_a_clock_or_lease_out_of_bounds_is_refused(env: dict[str, str], named: str) -> None:
    with pytest.raises(UnsafeConfig, match=named):
        check_safe(config(**env))


def test_a_short_lease_is_allowed_on_a_loopback_address_only() -> None:
    """The several-hosts benchmark kills a worker and waits out its lease: it needs a
    short one.  In public a lease no longer than a delivery's time limit would let a
    live, slow worker's message be claimed again and sent twice."""
    check_safe(config(PBEM_MAIL_LEASE_SECONDS="15", PBEM_BASE_URL="http://127.0.0.1:5000"))
    check_safe(config(PBEM_MAIL_LEASE_SECONDS="91", PBEM_CLOCK_SECONDS="1"))
    assert config(PBEM_CLOCK_SECONDS="2.5")["CLOCK_SECONDS"] == 2.5
