"""Where a webhook may post: an ``https`` address whose host resolves only to
public addresses, so that a player cannot make the service's workers call into
its own network (SSRF): no private, loopback, link-local, multicast, reserved,
shared (CGNAT) or unspecified address, however it is written (``127.1``, a
decimal number, an IPv4-mapped or NAT64 IPv6 address) or whatever a name
resolves to.  The check runs when the webhook is set and again before every
post, and the post goes to the address checked (a name that resolves elsewhere
a second later, DNS rebinding, is not asked again).  Hosts named in
``PBEM_WEBHOOK_ALLOW`` (tests, the demo's catcher) are exempt, and may use http.

>>> is_public(ipaddress.ip_address("93.184.215.14")), is_public(ipaddress.ip_address("100.64.0.1"))
(True, False)
>>> is_public(ipaddress.ip_address("::ffff:127.0.0.1")), is_public(ipaddress.ip_address("64:ff9b::a00:1"))
(False, False)
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urlsplit

from ..core.errors import Invalid
from ..words import N_

MAX_URL = 500
#: How long a host's name may take to resolve.
RESOLVE_SECONDS = 5.0

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
#: The ports an https webhook may use (a host in ``PBEM_WEBHOOK_ALLOW`` may use any).
HTTPS_PORTS = (443, 8443)
#: Special-purpose ranges (the IANA registries), refused whatever ``is_global``
#: says: this Python's lets some through (``fec0::/10``, ``192.0.0.0/24``).
#: IPv4-mapped, NAT64 and 6to4 addresses are judged by the IPv4 address they carry.
_SPECIAL = tuple(ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
    "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
    "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
    "::/128", "::1/128", "100::/64", "2001::/23", "2001:db8::/32", "fc00::/7", "fe80::/10", "fec0::/10",
    "ff00::/8"))


@dataclass(frozen=True)
class Target:
    """A webhook address taken apart: what the post connects to and asks for."""

    url: str
    scheme: str
    host: str
    port: int
    #: The path and query, as the request line carries them.
    path: str
    #: Named in ``PBEM_WEBHOOK_ALLOW``: any address it resolves to will do.
    allowed: bool


class Unresolvable(Invalid):
    """The host's name cannot be found (now: at delivery it may be found later)."""


def allowed_hosts(config: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(h.strip().lower() for h in str(config.get("WEBHOOK_ALLOW") or "").split(",") if h.strip())


def _refuse(message: str, **params: Any) -> Invalid:
    return Invalid(message, code="invalid-webhook-url", field="url", **params)


def parse_target(url: object, allow: frozenset[str]) -> Target:
    """The address, checked for its form only (no look-up); ``Invalid`` with the reason."""
    if not isinstance(url, str) or not url:
        raise _refuse(N_("give the webhook's address, starting with https://"))
    if len(url) > MAX_URL:
        raise _refuse(N_("a webhook address may be at most %(max)d characters long"), max=MAX_URL)
    if not url.isascii() or not url.isprintable() or " " in url:
        raise _refuse(N_("a webhook address must be plain ASCII without spaces (write an international "
                         "domain name in its xn-- form)"))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise _refuse(N_("that is not a web address")) from None
    host = (parts.hostname or "").lower().rstrip(".")
    if not host:
        raise _refuse(N_("that is not a web address"))
    allowed = host in allow
    if parts.scheme != "https" and not (allowed and parts.scheme == "http"):
        raise _refuse(N_("a webhook address must start with https://"))
    if parts.username is not None or parts.password is not None:
        raise _refuse(N_("a webhook address may not hold a user name or password"))
    if parts.scheme == "https" and not allowed and port is not None and port not in HTTPS_PORTS:
        raise _refuse(N_("a webhook address may use only the port 443 or 8443"))
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(url=url, scheme=parts.scheme, host=host, port=port or (443 if parts.scheme == "https" else 80),
                  path=path, allowed=allowed)


def is_public(ip: IP) -> bool:
    """Whether an address is one on the public internet (and not one that
    stands for, or carries, another that is not)."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return is_public(ip.ipv4_mapped)
        if ip in _NAT64 or ip in _NAT64_LOCAL:
            return is_public(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        if ip.sixtofour is not None and not is_public(ip.sixtofour):
            return False
        if ip.teredo is not None:
            return False  # a tunnel to somewhere we cannot see
    if any(ip in net for net in _SPECIAL if net.version == ip.version):
        return False
    return bool(ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_unspecified
                                      or ip.is_loopback or ip.is_link_local or ip.is_private))


def _lookup(host: str, port: int) -> list[IP]:
    """Every address the name resolves to, within ``RESOLVE_SECONDS``."""
    found: list[Any] = []
    failed: list[BaseException] = []

    def resolve() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError) as e:
            failed.append(e)

    # getaddrinfo has no time-out of its own.
    worker = threading.Thread(target=resolve, daemon=True, name="pbem-resolve")
    worker.start()
    worker.join(RESOLVE_SECONDS)
    if worker.is_alive() or failed or not found:
        raise Unresolvable(N_("the host %(host)s of the webhook address cannot be found"), host=host,
                           code="invalid-webhook-url", field="url")
    addresses: list[IP] = []
    for _family, _type, _proto, _name, sockaddr in found:
        ip = ipaddress.ip_address(str(sockaddr[0]).partition("%")[0])
        if ip not in addresses:
            addresses.append(ip)
    return addresses


def resolve(target: Target) -> IP:
    """The address to connect to: the first the host resolves to, once every one
    of them is public (a name with one private address among public ones is
    refused: which one a client picks is not ours to say)."""
    try:
        literal: IP | None = ipaddress.ip_address(target.host.strip("[]"))
    except ValueError:
        literal = None
    addresses = [literal] if literal is not None else _lookup(target.host, target.port)
    if not target.allowed:
        for ip in addresses:
            if not is_public(ip):
                raise _refuse(N_("the webhook address %(host)s leads to a private or local network address, "
                                 "where webhooks may not go"), host=target.host)
    return addresses[0]


def check_target(url: object, config: Mapping[str, Any]) -> tuple[Target, IP]:
    """The address checked whole: its form, then where it resolves to."""
    target = parse_target(url, allowed_hosts(config))
    return target, resolve(target)
