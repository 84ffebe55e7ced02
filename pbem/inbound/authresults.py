"""Reading Authentication-Results headers (RFC 8601): whether the server named
in ``INBOUND_TRUST`` says a reply's From domain passed DMARC, or SPF or DKIM
aligned with it (RFC 7489's relaxed alignment, by the Public Suffix List).

Pure: no database, no settings; the Public Suffix List is the one bundled with
``publicsuffixlist`` (nothing is fetched)."""

from __future__ import annotations

import functools
import re
from typing import Iterable

from publicsuffixlist import PublicSuffixList


def _segments(value: str) -> list[str]:
    """An Authentication-Results value cut at its semicolons, comments removed
    (quoted strings may hold either)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    quoted = escaped = False
    for ch in value:
        if escaped:
            escaped = False
            if not depth:
                current.append(ch)
            continue
        if ch == "\\" and (quoted or depth):
            escaped = True
            if not depth:
                current.append(ch)
            continue
        if depth:
            depth += {"(": 1, ")": -1}.get(ch, 0)
            continue
        if quoted:
            current.append(ch)
            quoted = ch != '"'
            continue
        if ch == '"':
            quoted = True
            current.append(ch)
        elif ch == "(":
            depth = 1
            current.append(" ")
        elif ch == ";":
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return parts


_METHOD = re.compile(r"([a-z0-9_-]+)(?:\s*/\s*[0-9]+)?\s*=\s*([a-z0-9_-]+)", re.IGNORECASE)
_PROPERTY = re.compile(r'([a-z0-9_-]+)\s*\.\s*([a-z0-9_.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s"]+)', re.IGNORECASE)


@functools.cache
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()  # the list bundled with the library: nothing is fetched


def _ascii_domain(domain: str) -> str:
    domain = domain.strip().strip(".").lower().rpartition("@")[2]
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def _aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment (RFC 7489 section 3.1): both domains have the same
    organisational domain, the name registered under a public suffix of the
    Public Suffix List.  So ``mail.example.org`` is aligned with
    ``example.org``, but a public suffix (``org``, ``co.uk``) is aligned with
    nothing, and ``evilexample.org`` is not ``example.org``.

    >>> [_aligned(d, "example.org") for d in ("mail.example.org", "EXAMPLE.org.", "org", "evilexample.org")]
    [True, True, False, False]
    """
    organisation = _suffixes().privatesuffix(_ascii_domain(domain))
    return organisation is not None and organisation == _suffixes().privatesuffix(_ascii_domain(from_domain))


def _passes(results: list[str], from_domain: str) -> bool:
    """Whether the results of one header show the From domain authenticated."""
    for result in results:
        found = _METHOD.match(result)
        if found is None or found.group(2).lower() != "pass":
            continue
        method = found.group(1).lower()
        props = {f"{p.group(1)}.{p.group(2)}".lower(): p.group(3).strip('"').lower()
                 for p in _PROPERTY.finditer(result, found.end())}
        if method == "dmarc" and _aligned(props.get("header.from", from_domain), from_domain):
            return True
        if method == "dkim" and _aligned(props.get("header.d") or props.get("header.i", ""), from_domain):
            return True
        if method == "spf" and _aligned(props.get("smtp.mailfrom", ""), from_domain):
            return True
    return False


def authenticated(values: Iterable[str], authserv_id: str, from_domain: str) -> bool:
    """Whether the Authentication-Results headers of ``authserv_id`` (all
    others are ignored: anyone can write one) say the From domain passed DMARC,
    or SPF or DKIM aligned with it.  Every header of that server must say so:
    a server should remove headers with its name from mail it receives (RFC 8601
    section 5), and where it does not, a forged one cannot outvote its own.

    >>> authenticated(["mx.example.net; spf=fail smtp.mailfrom=a.example",
    ...                "evil.example; dmarc=pass header.from=a.example"], "mx.example.net", "a.example")
    False
    >>> authenticated(["mx.example.net 1; dkim=pass (good) header.d=mail.a.example; dmarc=pass header.from=a.example"],
    ...               "MX.example.net", "a.example")
    True
    """
    verdicts = []
    for value in values:
        segments = _segments(value)
        if _authserv_id(segments[0]) != authserv_id.strip().lower():
            continue
        verdicts.append(_passes(segments[1:], from_domain))
    return bool(verdicts) and all(verdicts)


_AUTHSERV_ID = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s"]+))(?:\s+[0-9]+)?\s*$')


def _authserv_id(head: str) -> str | None:
    """The authserv-id at the head of an Authentication-Results value (RFC 8601:
    a token or a quoted string, then an optional version), unquoted and in lower
    case; ``None`` when the head is anything else (a quote left open, two words).

    >>> [_authserv_id(h) for h in ('mx.example', '"mx.example"', '"mx.ex\\\\ample" 1', '"mx.example', 'mx.example x')]
    ['mx.example', 'mx.example', 'mx.example', None, None]
    """
    found = _AUTHSERV_ID.fullmatch(head)
    if found is None:
        return None
    if found.group(2) is not None:
        return found.group(2).lower()
    return re.sub(r"\\(.)", r"\1", found.group(1)).lower()
