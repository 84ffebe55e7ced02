"""Where a webhook may post: https on a public address only, however the
address is written or whatever its name resolves to; hosts named in
PBEM_WEBHOOK_ALLOW are exempt (and may use http)."""

from __future__ import annotations

import ipaddress

import pytest

from pbem.core.errors import Invalid
from pbem.table.webhook_targets import allowed_hosts, check_target, is_public, parse_target, resolve

NOBODY: dict[str, str] = {"WEBHOOK_ALLOW": ""}


@pytest.mark.parametrize("url", [
    "https://localhost/hook",  # a name that resolves to 127.0.0.1
    "https://LOCALHOST./hook",
    "https://127.0.0.1/hook",
    "https://127.1/hook",  # short form of 127.0.0.1
    "https://2130706433/hook",  # 127.0.0.1 as one number
    "https://0x7f000001/hook",
    "https://0.0.0.0/hook",
    "https://10.1.2.3/hook",
    "https://172.16.0.1/hook",
    "https://192.168.1.1/hook",
    "https://169.254.169.254/latest/meta-data",  # cloud metadata (link-local)
    "https://100.64.0.1/hook",  # shared address space (CGNAT)
    "https://224.0.0.1/hook",  # multicast
    "https://240.0.0.1/hook",  # reserved
    "https://[::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",  # IPv4-mapped
    "https://[::ffff:10.0.0.1]/hook",
    "https://[64:ff9b::a00:1]/hook",  # NAT64 of 10.0.0.1
    "https://[fe80::1]/hook",
    "https://[fc00::1]/hook",
    "https://[2002:7f00:1::1]/hook",  # 6to4 around 127.0.0.1
    "https://[ff02::1]/hook",
    "https://[fec0::1]/hook",  # site-local (is_global lets it through on Python 3.11.7)
    "https://192.0.0.9/hook",  # IETF protocol assignments (likewise)
    "https://[::ffff:192.0.0.9]/hook",
    "https://192.88.99.1/hook",  # 6to4 relay anycast
    "https://[2001:db8::1]/hook",
])
def test_a_private_or_local_address_is_refused(url: str) -> None:
    with pytest.raises(Invalid) as refused:
        check_target(url, NOBODY)
    assert refused.value.code == "invalid-webhook-url"


@pytest.mark.parametrize("url", [
    "http://93.184.215.14/hook",  # not https
    "ftp://93.184.215.14/hook",
    "https://user:secret@93.184.215.14/hook",  # credentials in the address
    "https:///hook",
    "https://93.184.215.14:99999/hook",
    "https://exa mple.org/hook",
    "https://bücher.example/hook",  # write it as xn--
    "",
    None,
    42,
    "https://93.184.215.14/" + "x" * 500,
    "https://93.184.215.14:8080/hook",  # https on 443 or 8443 only
    "https://93.184.215.14:22/hook",
])
def test_an_address_of_the_wrong_form_is_refused(url: object) -> None:
    with pytest.raises(Invalid) as refused:
        parse_target(url, frozenset())
    assert refused.value.code == "invalid-webhook-url"


def test_a_name_that_cannot_be_found_is_refused() -> None:
    with pytest.raises(Invalid) as refused:
        check_target("https://no-such-host.invalid/hook", NOBODY)
    assert "cannot be found" in refused.value.message


def test_a_public_address_is_taken_and_is_what_the_post_connects_to() -> None:
    target, ip = check_target("https://93.184.215.14:8443/api/hook?x=1", NOBODY)
    assert (target.scheme, target.host, target.port, target.path) == ("https", "93.184.215.14", 8443,
                                                                      "/api/hook?x=1")
    assert str(ip) == "93.184.215.14" and not target.allowed


def test_an_allowed_host_may_be_local_and_use_http() -> None:
    config = {"WEBHOOK_ALLOW": " 127.0.0.1 , LocalHost"}
    assert allowed_hosts(config) == {"127.0.0.1", "localhost"}
    target, ip = check_target("http://127.0.0.1:8080/hook", config)
    assert target.allowed and str(ip) == "127.0.0.1"
    target, ip = check_target("https://localhost/hook", config)
    assert target.allowed and ip.is_loopback
    # Only the names given: another loopback name is still refused.
    with pytest.raises(Invalid):
        check_target("http://127.0.0.2/hook", config)


def test_what_counts_as_public() -> None:
    for text in ("93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"):
        assert is_public(ipaddress.ip_address(text)), text
    for text in ("100.127.255.255", "198.18.0.1", "192.0.2.1", "::", "2001:db8::1", "::ffff:192.168.0.1",
                 "fec0::1", "fedc::1", "192.0.0.9", "192.0.0.10", "192.0.0.170", "64:ff9b::c000:9"):
        assert not is_public(ipaddress.ip_address(text)), text


def test_an_https_address_may_use_only_the_usual_ports() -> None:
    assert parse_target("https://93.184.215.14/hook", frozenset()).port == 443
    assert parse_target("https://93.184.215.14:443/hook", frozenset()).port == 443
    assert parse_target("https://93.184.215.14:8443/hook", frozenset()).port == 8443
    with pytest.raises(Invalid) as refused:
        parse_target("https://93.184.215.14:6379/hook", frozenset())
    assert "port 443 or 8443" in refused.value.message
    # An allowed host may use any port.
    assert parse_target("https://catcher.example:9000/hook", frozenset({"catcher.example"})).port == 9000


def test_resolving_checks_every_address_of_the_name() -> None:
    # "localhost" may resolve to ::1 and 127.0.0.1: each one is checked.
    with pytest.raises(Invalid):
        resolve(parse_target("https://localhost:8443/", frozenset()))
