"""The guard (issue 26): no channel URL makes the service call inside its own network.

Every hostile URL below is refused with a message that says why and does not repeat the
URL; a name is resolved once and every address it has is checked (a fake resolver gives
the answers); the connection goes to the checked address, so a resolver that changes its
answer cannot redirect it; a redirect is never followed. Nothing reaches the receiver."""

from __future__ import annotations

import re

import pytest
from channels_support import Reply, fake_resolver, hook_receiver

from server import config
from server.channels import guard, sending
from server.channels.guard import Refused, check
from server.config import ConfigError

PUBLIC = "93.184.215.14"
NAMES = {
    "example.com": [PUBLIC],
    "localhost": ["127.0.0.1"],
    "internal.example": ["10.0.0.1"],
    "mixed.example": [PUBLIC, "10.0.0.1"],
    "mixed6.example": [PUBLIC, "fd12::1"],
    "metadata.example": ["169.254.169.254"],
    "mapped.example": ["::ffff:10.0.0.1"],
    "rebind.127.0.0.1.example": ["127.0.0.1"],
}
RESOLVE = fake_resolver(NAMES)

#: (URL, a word the refusal's message has): at least 30 ways to reach inside.
HOSTILE = [
    ("http://example.com/hook", "https://"),
    ("ftp://example.com/hook", "https://"),
    ("gopher://127.0.0.1:25/", "https://"),
    ("https://127.0.0.1/secret", "loopback"),
    ("https://127.255.255.254/", "loopback"),
    ("https://localhost/", "loopback"),
    ("https://10.0.0.1/", "private"),
    ("https://172.16.5.4/", "private"),
    ("https://192.168.1.1/", "private"),
    ("https://169.254.169.254/latest/meta-data", "link-local"),
    ("https://metadata.example/", "link-local"),
    ("https://100.64.0.1/", "carrier-grade NAT"),
    ("https://224.0.0.1/", "multicast"),
    ("https://240.0.0.1/", "reserved"),
    ("https://255.255.255.255/", "reserved"),
    ("https://0.0.0.0/", "this network"),
    ("https://192.0.0.8/", "IETF"),
    ("https://198.18.0.1/", "benchmarking"),
    ("https://192.0.2.1/", "documentation"),
    ("https://198.51.100.7/", "documentation"),
    ("https://203.0.113.9/", "documentation"),
    ("https://[::1]/", "IPv4-compatible"),  # ::1 lies in ::/96
    ("https://[::]/", "IPv4-compatible"),
    ("https://[::7f00:1]/", "IPv4-compatible"),
    ("https://[::ffff:127.0.0.1]/", "IPv4-mapped"),
    ("https://[::ffff:a00:1]/", "IPv4-mapped"),
    ("https://mapped.example/", "IPv4-mapped"),
    ("https://[64:ff9b::a00:1]/", "NAT64"),
    ("https://[2002:7f00:1::1]/", "6to4"),
    ("https://[2001:db8::1]/", "documentation"),
    ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"),
    ("https://[fd00::1]/", "unique-local"),
    ("https://[fe80::1]/", "link-local"),
    ("https://[fe80::1%25eth0]/", "zone"),
    ("https://[ff02::1]/", "multicast"),
    ("https://2130706433/", "decimal, octal or hex"),
    ("https://0177.0.0.1/", "decimal, octal or hex"),
    ("https://0x7f.0.0.1/", "decimal, octal or hex"),
    ("https://0x7f000001/", "decimal, octal or hex"),
    ("https://127.1/", "decimal, octal or hex"),
    ("https://017700000001/", "decimal, octal or hex"),
    ("https://①②⑦.0.0.1/", "loopback"),  # IDNA folds the digits: 127.0.0.1
    ("https://good@127.0.0.1/", "user name"),
    ("https://good.example:pw@example.com/", "user name"),
    ("https://example.com\\@127.0.0.1/", "backslash"),
    ("https://internal.example/", "private"),
    ("https://mixed.example/", "private"),  # every address is checked, not the first
    ("https://mixed6.example/", "unique-local"),
    ("https://rebind.127.0.0.1.example/", "loopback"),
    ("https://nowhere.example/", "cannot be found"),
    ("https:///path-only", "no host"),
    ("https://example.com:99999/", "port"),
    ("https://exa mple.com/", "spaces"),
]


def allowing(networks: str) -> tuple[guard.Network, ...]:
    """The networks `CAFE_CHANNELS_ALLOW=networks` allows."""
    overrides = {"CHANNELS_ALLOW": networks, "DEVELOPMENT": True}
    return config.load("/tmp", {}, overrides).channels_allowed


def test_there_are_at_least_30_hostile_urls() -> None:
    assert len(HOSTILE) >= 30


@pytest.mark.parametrize(("url", "why"), HOSTILE)
def test_a_hostile_url_is_refused_with_a_clear_message(url: str, why: str) -> None:
    with pytest.raises(Refused) as refused:
        check(url, allowed=(), resolver=RESOLVE)
    message = str(refused.value)
    assert why in message
    assert "/secret" not in message and "meta-data" not in message


def test_no_hostile_url_reaches_a_receiver() -> None:
    """The same refusals, with the receiver's own port in every URL: 0 requests arrive."""
    with hook_receiver() as hook:
        for url, _why in HOSTILE:
            spliced = url.replace("/", f":{hook.port}/", 3).replace(f"//:{hook.port}", "//", 1)
            for candidate in (url, hook.url(), spliced):
                if candidate == hook.url():
                    continue
                try:
                    target = check(candidate, allowed=(), resolver=RESOLVE)
                except Refused:
                    continue
                sending.send("POST", target, body=b"{}", headers={})
        with pytest.raises(Refused):
            check(hook.url(), allowed=(), resolver=RESOLVE)
    assert hook.received == []


def test_a_public_https_url_passes_and_is_pinned_to_its_address() -> None:
    target = check("https://example.com/hook?x=1", allowed=(), resolver=RESOLVE)
    assert (target.scheme, target.host, target.port, target.address) == (
        "https",
        "example.com",
        443,
        PUBLIC,
    )


def test_an_allowed_network_may_be_reached_over_http_and_nothing_else_is() -> None:
    allowed = allowing("10.1.2.0/24,127.0.0.1/32")
    resolve = fake_resolver({"matrix.internal": ["10.1.2.5"], "other.internal": ["10.1.3.5"]})
    assert check("http://matrix.internal:8008/", allowed=allowed, resolver=resolve).address == (
        "10.1.2.5"
    )
    assert check("http://127.0.0.1:9/", allowed=allowed, resolver=resolve).address == "127.0.0.1"
    with pytest.raises(Refused, match="private"):
        check("https://other.internal/", allowed=allowed, resolver=resolve)
    with pytest.raises(Refused, match="loopback"):
        check("https://127.0.0.2/", allowed=allowed, resolver=resolve)
    with pytest.raises(Refused, match="https://"):
        check("http://example.com/", allowed=allowed, resolver=RESOLVE)


def test_a_bad_allowed_network_is_named() -> None:
    with pytest.raises(ConfigError, match=re.escape("CAFE_CHANNELS_ALLOW: '10.1.2.3/24'")):
        allowing("10.1.2.3/24")


def test_a_resolver_that_answers_public_then_private_is_refused_the_second_time() -> None:
    answers = iter([[PUBLIC], ["10.0.0.1"]])
    calls: list[str] = []

    def flipping(host: str, port: int) -> list[str]:
        calls.append(host)
        return next(answers)

    assert check("https://flip.example/", allowed=(), resolver=flipping).address == PUBLIC
    with pytest.raises(Refused, match=re.escape("10.0.0.1")):
        check("https://flip.example/", allowed=(), resolver=flipping)
    assert calls == ["flip.example", "flip.example"]  # once per check, never more


def test_the_connection_goes_to_the_checked_address_whatever_dns_says_later() -> None:
    """The name is resolved once; the request connects to that address with the name in
    `Host`, even though the system resolver knows no such name."""
    with hook_receiver() as hook:
        allowed = allowing("127.0.0.1/32")
        calls: list[str] = []

        def once(host: str, port: int) -> list[str]:
            calls.append(host)
            return ["127.0.0.1"] if len(calls) == 1 else ["10.0.0.1"]

        target = check(f"http://hooks.invalid:{hook.port}/in", allowed=allowed, resolver=once)
        answer = sending.send("POST", target, body=b'{"a": 1}', headers={})
    assert answer.status == 200 and answer.ok
    assert calls == ["hooks.invalid"]
    [request] = hook.received
    assert request.headers["host"] == f"hooks.invalid:{hook.port}"
    assert request.path == "/in"


def test_tls_uses_the_name_while_the_pool_connects_to_the_address() -> None:
    request = sending.PinnedRequest()
    request.prepare(method="POST", url="https://hooks.example/x", data=b"")
    request.address = PUBLIC
    adapter = sending.PinnedAdapter()
    host_params, pool_kwargs = adapter.build_connection_pool_key_attributes(request, True)
    assert host_params["host"] == PUBLIC
    assert pool_kwargs["server_hostname"] == "hooks.example"
    assert pool_kwargs["assert_hostname"] == "hooks.example"


def test_a_request_without_a_checked_address_is_never_made() -> None:
    request = sending.PinnedRequest()
    request.prepare(method="POST", url="https://hooks.example/x", data=b"")
    with pytest.raises(Exception, match="no checked address"):
        sending._ADAPTER.build_connection_pool_key_attributes(request, True)


def test_a_redirect_to_loopback_is_not_followed_and_is_a_failure() -> None:
    with hook_receiver("127.0.0.2") as inside, hook_receiver() as hook:
        hook.answer = lambda _r: Reply(302, {"Location": inside.url("/admin")}, b"")
        target = check(hook.url(), allowed=allowing("127.0.0.1/32"), resolver=RESOLVE)
        answer = sending.send("POST", target, body=b"{}", headers={})
    assert answer.status == 302 and not answer.ok
    assert len(hook.received) == 1
    assert inside.received == []


def test_every_range_of_the_issue_is_in_the_one_list() -> None:
    listed = {net for net, _what in guard.REFUSED}
    for net in (
        "0.0.0.0/8",
        "100.64.0.0/10",
        "192.0.0.0/24",
        "198.18.0.0/15",
        "::/96",
        "::ffff:0:0/96",
        "64:ff9b::/96",
        "2002::/16",
        "fc00::/7",
        "fe80::/10",
    ):
        assert net in listed
