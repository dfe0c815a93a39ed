"""The channels section of `/settings` (issue 26): add a channel from the form (refused as
the API refuses), see it masked, send it a test and remove it."""

from __future__ import annotations

import re

import pytest
from channels_support import Reply, hook_receiver
from server_support import Api, csrf_of, reconfigure, signed_in

pytestmark = pytest.mark.postgres


def test_add_test_and_remove_a_channel_from_the_settings_page(api: Api) -> None:
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    api.register("ann")
    browser = signed_in(api, "ann")
    page = browser.get("/settings").get_data(as_text=True)
    assert 'id="channels"' in page and 'action="/settings/channels"' in page
    csrf = csrf_of(page)
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(200, body=b"pong")
        added = browser.post(
            "/settings/channels",
            data={
                "csrf": csrf,
                "kind": "webhook",
                "url": hook.url("/very-secret"),
                "events": ["your_turn", "game_over"],
            },
        )
        assert added.status_code == 303
        shown = browser.get("/settings").get_data(as_text=True)
        assert "Its signing secret, shown only now: whsec_" in shown
        assert "very-secret" not in shown and "http://127.0.0.1/…" in shown
        assert "events: your turn, game over" in shown
        again = browser.get("/settings").get_data(as_text=True)
        assert "whsec_" not in again  # shown once
        found = re.search(r'action="/settings/channels/(\d+)/test"', again)
        assert found is not None
        number = found.group(1)
        tested = browser.post(f"/settings/channels/{number}/test", data={"csrf": csrf})
        assert tested.status_code == 303
        report = browser.get("/settings").get_data(as_text=True)
        assert "Delivered: the receiver answered 200." in report and "pong" in report
    assert len(hook.received) == 1
    removed = browser.post(f"/settings/channels/{number}/remove", data={"csrf": csrf})
    assert removed.status_code == 303
    assert f"Channel {number} removed." in browser.get("/settings").get_data(as_text=True)


def test_a_url_inside_the_network_is_refused_on_the_page(api: Api) -> None:
    api.register("ann")
    browser = signed_in(api, "ann")
    csrf = csrf_of(browser.get("/settings").get_data(as_text=True))
    browser.post(
        "/settings/channels",
        data={"csrf": csrf, "kind": "slack", "url": "https://10.0.0.1/x", "events": ["reminder"]},
    )
    page = browser.get("/settings").get_data(as_text=True)
    assert "the service never calls inside a network" in page
    assert "10.0.0.1 ·" not in page  # nothing added


def test_the_section_speaks_the_players_language(api: Api) -> None:
    api.register("ann")
    browser = signed_in(api, "ann")
    csrf = csrf_of(browser.get("/settings").get_data(as_text=True))
    browser.post(
        "/settings/preferences",
        data={"csrf": csrf, "turn_emails": "each", "timezone": "UTC", "language": "cs"},
    )
    page = browser.get("/settings").get_data(as_text=True)
    assert "Kanály kromě e-mailu" in page
