"""A new player's address is read strictly and normalised, so one mailbox is one player; an
international address is accepted only where the SMTP server offers SMTPUTF8."""

from __future__ import annotations

import pytest

from server.mailbox import AddressError, normalise_address, parse_new_address


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("ann@example.com", "ann@example.com"),
        ("  Ann.Lee+cafe@Example.COM ", "ann.lee+cafe@example.com"),
        ("o'brien@example.ie", "o'brien@example.ie"),
        ("ann@bücher.example", "ann@xn--bcher-kva.example"),
        ("ann@XN--BCHER-KVA.example", "ann@xn--bcher-kva.example"),
        ("MÜLLER@example.de", "müller@example.de"),
        ("mu\u0308ller@example.de", "müller@example.de"),  # decomposed ü: NFC
    ],
)
def test_one_mailbox_is_one_normal_address(text, normal):
    assert normalise_address(text) == normal


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("<ann@s.example>", "bare address"),
        ('"x"<ann@s.example>', "bare address"),
        ("Ann <ann@s.example>", "bare address"),
        ("a,evil@b.cc", "bare address"),
        ("ann@s.example, bob@s.example", "bare address"),
        ("ann@s.example (work)", "bare address"),
        ("ann", "not an email address"),
        ("@example.com", "not an email address"),
        ("ann@", "not an email address"),
        ("ann@@example.com", "mailbox name"),
        ("ann..lee@example.com", "mailbox name"),
        (".ann@example.com", "mailbox name"),
        ("ann@localhost", "domain name"),
        ("ann@-x.example", "domain name"),
        ("ann@exa_mple.com", "domain name"),
        ("ann@1.2.3.4", "not a number"),
        ("ann\n@example.com", "bare address"),
        ("x" * 65 + "@example.com", "longer than 64"),
        ("", "is needed"),
    ],
)
def test_anything_but_one_bare_address_is_refused_with_the_reason(text, reason):
    with pytest.raises(AddressError, match=reason):
        normalise_address(text)


def test_an_international_address_needs_smtputf8():
    assert parse_new_address("Müller@example.de", smtputf8=True) == "müller@example.de"
    with pytest.raises(AddressError, match="outside ASCII"):
        parse_new_address("müller@example.de", smtputf8=False)
    # an international domain alone is written in ASCII: no SMTPUTF8 needed
    assert parse_new_address("ann@bücher.example", smtputf8=False) == "ann@xn--bcher-kva.example"
    assert isinstance(AddressError("x"), ValueError)
