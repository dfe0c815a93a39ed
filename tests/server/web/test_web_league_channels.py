"""The channels section of a league's page (issue 26): its organiser alone sees it and adds
a channel from the form (a league's events only; refused as the API refuses), sees it
masked, sends it a test and removes it; anyone else sees no section and is refused."""

from __future__ import annotations

import re

import pytest
from channels_support import Reply, hook_receiver
from server_support import Api, csrf_of, reconfigure, signed_in

pytestmark = pytest.mark.postgres

PAGE = "/leagues/tuesday"


@pytest.fixture
def league(api: Api) -> Api:
    """ann organises `tuesday`; bob is another player."""
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    ann = api.register("ann")
    api.register("bob")
    settings = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 2, "division_size": 4}
    assert api.call("POST", "/api/leagues", ann, json=settings).status_code == 201
    return api


def test_the_organiser_adds_tests_and_removes_a_league_channel(league: Api) -> None:
    browser = signed_in(league, "ann")
    page = browser.get(PAGE).get_data(as_text=True)
    assert 'id="channels"' in page and 'action="/leagues/tuesday/channels"' in page
    assert 'value="reminder"' not in page and 'value="message"' not in page  # a player's own
    assert page.count('name="events"') == 3 and page.count(" checked>") == 3
    csrf = csrf_of(page)
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(200, body=b"club pong")
        added = browser.post(
            "/leagues/tuesday/channels",
            data={
                "csrf": csrf,
                "kind": "webhook",
                "url": hook.url("/club-secret"),
                "events": ["your_turn", "league"],
            },
        )
        assert added.status_code == 303 and added.location.endswith("/leagues/tuesday#channels")
        shown = browser.get(PAGE).get_data(as_text=True)
        assert "Its signing secret, shown only now: whsec_" in shown
        assert "club-secret" not in shown and "http://127.0.0.1/…" in shown
        assert "events: your turn, league seasons" in shown
        again = browser.get(PAGE).get_data(as_text=True)
        assert "whsec_" not in again
        found = re.search(r'action="/leagues/tuesday/channels/(\d+)/test"', again)
        assert found is not None
        number = found.group(1)
        tested = browser.post(f"/leagues/tuesday/channels/{number}/test", data={"csrf": csrf})
        assert tested.status_code == 303
        report = browser.get(PAGE).get_data(as_text=True)
        assert "Delivered: the receiver answered 200." in report and "club pong" in report
    assert len(hook.received) == 1
    assert "the league's channel" in hook.received[0].json()["data"]["text"]
    removed = browser.post(f"/leagues/tuesday/channels/{number}/remove", data={"csrf": csrf})
    assert removed.status_code == 303
    assert f"Channel {number} removed." in browser.get(PAGE).get_data(as_text=True)
    assert "Your channels" not in browser.get("/settings").get_data(as_text=True)


def test_a_players_own_event_is_refused_on_the_page(league: Api) -> None:
    browser = signed_in(league, "ann")
    csrf = csrf_of(browser.get(PAGE).get_data(as_text=True))
    browser.post(
        "/leagues/tuesday/channels",
        data={"csrf": csrf, "kind": "slack", "url": "http://127.0.0.1:9/x", "events": ["reminder"]},
    )
    page = browser.get(PAGE).get_data(as_text=True)
    assert "reminder and message are each player&#39;s own" in page
    assert "127.0.0.1 ·" not in page  # nothing added


def test_nobody_but_the_organiser_sees_or_uses_the_section(league: Api) -> None:
    assert 'id="channels"' not in league.client.get(PAGE).get_data(as_text=True)
    browser = signed_in(league, "bob")
    page = browser.get(PAGE).get_data(as_text=True)
    assert 'id="channels"' not in page and "Tuesday Club" in page
    refused = browser.post(
        "/leagues/tuesday/channels",
        data={"csrf": csrf_of(page), "kind": "slack", "url": "http://127.0.0.1:9/x"},
    )
    assert refused.status_code == 403
    assert "only the organiser of tuesday can manage its channels" in refused.get_data(as_text=True)


def test_the_section_at_its_most_says_so(league: Api) -> None:
    browser = signed_in(league, "ann")
    csrf = csrf_of(browser.get(PAGE).get_data(as_text=True))
    for number in range(5):
        browser.post(
            "/leagues/tuesday/channels",
            data={
                "csrf": csrf,
                "kind": "slack",
                "url": f"http://127.0.0.1:9/{number}",
                "events": ["game_over"],
            },
        )
    page = browser.get(PAGE).get_data(as_text=True)
    assert "tuesday has 5 channels, the most a league may have: remove one first." in page
    assert 'action="/leagues/tuesday/channels">' not in page
