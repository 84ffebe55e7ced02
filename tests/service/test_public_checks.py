"""Start-up checks added by issue 27: ``pbem demo`` on a public address, and
the metrics endpoint without a token in public."""

from __future__ import annotations

from typing import Any

import pytest

from pbem import cli
from pbem.core.config import UnsafeConfig, check_safe, load_config


@pytest.mark.parametrize("url", ["https://clans.example", "http://203.0.113.5:5000", "http://[2001:db8::1]/"])
def test_the_demo_refuses_a_public_base_url(url: str) -> None:
    """It runs on the development key with a mailbox showing every link."""
    with pytest.raises(UnsafeConfig, match="pbem demo runs on the development secret key"):
        check_safe(load_config({"DEMO": True, "BASE_URL": url}, environ={}))
    # On this machine it starts as before.
    for local in ("http://127.0.0.1:5000", "http://localhost:8000", "http://[::1]:5000"):
        check_safe(load_config({"DEMO": True, "BASE_URL": local}, environ={}))


def test_pbem_demo_with_a_public_base_url_refuses_to_start(monkeypatch: Any, capsys: Any, tmp_path: Any) -> None:
    monkeypatch.setenv("PBEM_BASE_URL", "https://clans.example")
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path}/demo.db")
    assert cli.main(["demo"]) == 2
    err = capsys.readouterr().err
    assert "pbem: refusing to start: PBEM_BASE_URL=https://clans.example is not on this machine" in err
    assert not (tmp_path / "demo.db").exists()  # refused before anything was made
