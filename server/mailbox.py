"""A player's address (a mailbox), read strictly: exactly `local@domain`, nothing around it
(`parse_new_address`): no display name, no angle brackets, no comments, no lists. It is
normalised before it is stored or compared (NFC, lower case, the domain as IDNA A-labels),
so one mailbox is one player however it is typed. A local part outside ASCII needs an SMTP
server that offers SMTPUTF8 (RFC 6531); without one, such an address is refused when the
player registers rather than failing at every email.

A rule of the accounts, below the domain and the mail (standard library only), like the
players' names in `server.names`.
"""

from __future__ import annotations

import re
import unicodedata

from cafe.i18n import lazy_gettext

#: Characters of an unquoted local part (RFC 5322 `atext`); beyond ASCII, RFC 6531 allows
#: any character that is not a control or a space.
_ATEXT = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+")
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
MAX_ADDRESS = 254  # octets (RFC 5321 path limit, less the angle brackets)
MAX_LOCAL = 64


class AddressError(ValueError):
    """Not an address a player can register; the message says why."""


def _atom_ok(atom: str) -> bool:
    if atom.isascii():
        return _ATEXT.fullmatch(atom) is not None
    return all(
        _ATEXT.fullmatch(c) is not None
        or (not c.isascii() and unicodedata.category(c)[0] not in "CZ")
        for c in atom
    )


def _domain(text: str, address: str) -> str:
    """The domain as lower-case A-labels (`bücher.example` → `xn--bcher-kva.example`)."""
    try:
        ascii_domain = text.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise AddressError(
            lazy_gettext(
                "%(address)s: %(domain)s is not a domain name",
                address=repr(address),
                domain=repr(text),
            )
        ) from None
    labels = ascii_domain.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels):
        raise AddressError(
            lazy_gettext(
                "%(address)s: %(domain)s is not a domain name like example.com",
                address=repr(address),
                domain=repr(text),
            )
        )
    if labels[-1].isdigit():
        raise AddressError(
            lazy_gettext(
                "%(address)s: the domain must be a name, not a number", address=repr(address)
            )
        )
    return ascii_domain


def normalise_address(text: str) -> str:
    """`text` as one bare address, normalised: NFC, lower case, IDNA domain. Raises
    `AddressError` for anything else (a display name, `<…>`, quotes, several addresses)."""
    address = unicodedata.normalize("NFC", text.strip())
    if not address:
        raise AddressError(lazy_gettext("an email address is needed, like ann@example.com"))
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        raise AddressError(
            lazy_gettext(
                "%(address)s is not an email address like ann@example.com", address=repr(text)
            )
        )
    if any(c in address for c in ' \t<>()[]\\",;:') or not address.isprintable():
        raise AddressError(
            lazy_gettext(
                "%(address)s: give the bare address, like ann@example.com, without a name, "
                "brackets, quotes, spaces or a second address",
                address=repr(text),
            )
        )
    if "@" in local or not all(_atom_ok(atom) for atom in local.split(".")):
        raise AddressError(
            lazy_gettext(
                "%(address)s: the part before @ is not a valid mailbox name", address=repr(text)
            )
        )
    local = local.lower()
    if len(local.encode()) > MAX_LOCAL:
        raise AddressError(
            lazy_gettext(
                "%(address)s: the part before @ is longer than %(most)s bytes",
                address=repr(text),
                most=MAX_LOCAL,
            )
        )
    normal = f"{local}@{_domain(domain, text)}"
    if len(normal.encode()) > MAX_ADDRESS:
        raise AddressError(
            lazy_gettext(
                "%(address)s is longer than %(most)s bytes", address=repr(text), most=MAX_ADDRESS
            )
        )
    return normal


def parse_new_address(text: str, *, smtputf8: bool) -> str:
    """The normalised address of a new player (`normalise_address`); an international
    address only if the SMTP server offers SMTPUTF8 (`smtputf8`, setting `SMTP_UTF8`)."""
    address = normalise_address(text)
    if not smtputf8 and not address.isascii():
        raise AddressError(
            lazy_gettext(
                "%(address)s: this service's mail server cannot deliver to addresses with "
                "letters outside ASCII before the @; please use another address",
                address=repr(text),
            )
        )
    return address
