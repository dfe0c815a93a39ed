"""The guard between a player's channel URL and the network (issue 26): a channel can never
make the service call inside its own network.

A URL is checked where it is given (`check`, when a channel is created) and again at every
delivery (`check` with the resolver of that moment): https only (http only for an address
the operator allows), no userinfo, no IPv4 address spelled in decimal, octal or hex, and
its name resolved once, every address it resolves to checked against `REFUSED` (and
Python's own "not global"), unless it lies in a network the operator allows
(`CAFE_CHANNELS_ALLOW`). The delivery then connects to the checked address itself
(`server.channels.sending`): TLS's SNI, the certificate and `Host` use the name, so a DNS
answer that changes between the check and the connection cannot redirect it.

`requests-hardened` was weighed as the base and not taken: it checks only the first address
a name resolves to, knows no allowed networks (only "loopback or not"), lets IPv4-compatible
(`::/96`) and reserved addresses through, and logs the host of every refusal; what it does
well — pinning a pool to the address while the TLS name stays the host — is the ten lines of
`server.channels.sending.PinnedAdapter`.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from cafe.i18n import N_
from cafe.i18n import gettext as _

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

#: A resolver: the addresses (as text) a name has for a port. The system's is
#: `system_resolver`; the tests give fakes.
Resolver = Callable[[str, int], Sequence[str]]

#: Every range a channel may never reach, with what it is; the one list (docs/security.md).
REFUSED: tuple[tuple[str, str], ...] = (
    ("0.0.0.0/8", N_("this network")),
    ("10.0.0.0/8", N_("private")),
    ("100.64.0.0/10", N_("carrier-grade NAT")),
    ("127.0.0.0/8", N_("loopback")),
    ("169.254.0.0/16", N_("link-local")),
    ("172.16.0.0/12", N_("private")),
    ("192.0.0.0/24", N_("IETF protocol assignments")),
    ("192.0.2.0/24", N_("documentation")),
    ("192.88.99.0/24", N_("6to4 relay")),
    ("192.168.0.0/16", N_("private")),
    ("198.18.0.0/15", N_("benchmarking")),
    ("198.51.100.0/24", N_("documentation")),
    ("203.0.113.0/24", N_("documentation")),
    ("224.0.0.0/4", N_("multicast")),
    ("240.0.0.0/4", N_("reserved")),
    ("::/96", N_("IPv4-compatible")),
    ("::ffff:0:0/96", N_("IPv4-mapped")),
    ("64:ff9b::/96", N_("NAT64")),
    ("64:ff9b:1::/48", N_("local NAT64")),
    ("100::/64", N_("discard")),
    ("2001::/32", N_("Teredo")),
    ("2001:db8::/32", N_("documentation")),
    ("2002::/16", N_("6to4")),
    ("3fff::/20", N_("documentation")),
    ("5f00::/16", N_("segment routing")),
    ("fc00::/7", N_("unique-local")),
    ("fe80::/10", N_("link-local")),
    ("fec0::/10", N_("site-local")),
    ("ff00::/8", N_("multicast")),
)
_REFUSED_NETWORKS: tuple[tuple[Network, str], ...] = tuple(
    (ipaddress.ip_network(net), what) for net, what in REFUSED
)

#: A host that is only digits, hex digits, `x` and dots: an IPv4 address in some spelling.
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]*))*$", re.IGNORECASE)
_LAST_LABEL_NUMERIC = re.compile(r"(^|\.)(0x[0-9a-f]*|[0-9]+)\.?$", re.IGNORECASE)


class Refused(ValueError):
    """A channel URL the service will not call; the message says why, in the reader's
    language (never the URL itself, which is a secret)."""


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL: where to connect (`address`, the one checked) and the name TLS and
    `Host` use (`host`)."""

    url: str
    scheme: str
    host: str
    port: int
    address: str


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system's resolver gives `host`, in its order."""
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    addresses: list[str] = []
    for family, _kind, _proto, _name, sockaddr in answers:
        if family in (socket.AF_INET, socket.AF_INET6) and sockaddr[0] not in addresses:
            addresses.append(str(sockaddr[0]))
    return addresses


def why_refused(address: Address, allowed: Sequence[Network]) -> str | None:
    """What `address` is when a channel may not reach it (None: it may)."""
    if any(address.version == net.version and address in net for net in allowed):
        return None
    for network, what in _REFUSED_NETWORKS:
        if address.version == network.version and address in network:
            return f"{network} ({_(what)})"
    if not address.is_global or address.is_multicast:
        return _("not a public address")
    return None


def _host_of(url: str) -> tuple[str, str, int, str | None]:
    """The scheme, host (lower case, IDNA), port and literal address (or None) of `url`."""
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise Refused(_("The URL has spaces or control characters in it."))
    if "\\" in url:
        raise Refused(_("The URL may not contain a backslash."))
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        raise Refused(_("The URL must start with https://."))
    if "@" in parts.netloc or parts.username is not None:
        raise Refused(_("The URL may not carry a user name or password before its host."))
    try:
        raw_host = parts.hostname or ""
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise Refused(_("The URL's port is not a number from 1 to 65535.")) from None
    if not raw_host:
        raise Refused(_("The URL names no host."))
    if "%" in raw_host:
        raise Refused(_("The URL's host may not carry a zone."))
    if parts.netloc.startswith("[") or ":" in raw_host:
        try:
            return scheme, raw_host, port, str(ipaddress.IPv6Address(raw_host))
        except ValueError:
            raise Refused(_("The URL's host is not a valid IPv6 address.")) from None
    try:
        host = raw_host.encode("idna").decode("ascii").lower().rstrip(".")
    except UnicodeError:
        raise Refused(_("The URL's host is not a valid name.")) from None
    if _NUMERIC_HOST.match(host) or _LAST_LABEL_NUMERIC.search(host):
        try:
            literal = ipaddress.IPv4Address(host)
        except ValueError:
            raise Refused(
                _("The URL's host is an IP address in decimal, octal or hex spelling.")
            ) from None
        return scheme, host, port, str(literal)
    return scheme, host, port, None


def check(url: str, *, allowed: Sequence[Network], resolver: Resolver) -> Target:
    """`url` checked, its host resolved once and every address checked: the target to
    connect to, or `Refused` saying why."""
    scheme, host, port, literal = _host_of(url)
    if scheme == "http" and not allowed:
        raise Refused(_("The URL must start with https://."))
    answers = [literal] if literal is not None else list(resolver(host, port))
    if not answers:
        raise Refused(_("The host %(host)s cannot be found.", host=host))
    addresses: list[Address] = []
    for answer in answers:
        try:
            address = ipaddress.ip_address(answer.split("%")[0])
        except ValueError:
            raise Refused(_("The host %(host)s cannot be found.", host=host)) from None
        reason = why_refused(address, allowed)
        if reason is not None:
            raise Refused(
                _(
                    "The host %(host)s is at %(address)s, in %(network)s: the service never"
                    " calls inside a network.",
                    host=host,
                    address=str(address),
                    network=reason,
                )
            )
        addresses.append(address)
    if scheme == "http" and not all(
        any(a.version == net.version and a in net for net in allowed) for a in addresses
    ):
        raise Refused(_("The URL must start with https://."))
    return Target(url=url, scheme=scheme, host=host, port=port, address=str(addresses[0]))
