"""Configuration: defaults, then PBEM_* variables, then the mapping given to create_app."""

import pytest

from pbem.core.config import load_config


def test_defaults_are_embedded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = load_config(environ={})
    assert config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'instance' / 'pbem.sqlite3'}"
    assert config["BROKER_URL"] == "" and config["MAILBOX"] is False and config["TURN_HOURS"] == 72


def test_environment_then_mapping(tmp_path):
    env = {"PBEM_SMTP_HOST": "mail.example", "PBEM_SMTP_PORT": "2525", "PBEM_SMTP_TLS": "yes",
           "PBEM_BASE_URL": "https://clans.example/", "PBEM_INSTANCE_PATH": str(tmp_path)}
    config = load_config({"SMTP_PORT": 587}, environ=env)
    assert config["SMTP_HOST"] == "mail.example" and config["SMTP_TLS"] is True
    assert config["SMTP_PORT"] == 587  # the mapping wins over the environment
    assert config["BASE_URL"] == "https://clans.example"
    assert config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'pbem.sqlite3'}"


@pytest.mark.parametrize("key, value", [("PBEM_SMTP_PORT", "twenty-five"), ("PBEM_SMTP_TLS", "maybe")])
def test_bad_values_are_named(key, value):
    with pytest.raises(ValueError, match=key):
        load_config(environ={key: value})
