"""Channel deliveries, sent by the worker like the mail (issue 26, `server.jobs.deliveries`):
queued with the game's events, one delivery id per event and channel, 2xx only success, 410
disables, 429 waits for `Retry-After`, a dead receiver delays nothing else, the schedule
ends after about three days with the channel disabled and its owner emailed, a worker
killed mid-delivery sends at most twice with the same id, and the guard refuses again at
delivery."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from channels_support import Reply, fake_resolver, hook_receiver
from server_support import Api, reconfigure
from sqlalchemy import insert
from sqlmodel import Session, col, select

from server.channels import store
from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs import deliveries, retention
from server.jobs.deliveries import Deliveries
from server.models import Channel, ChannelDelivery, Player, utcnow
from server.postbox import pings
from server.postbox.pings import ChannelEvent

pytestmark = pytest.mark.postgres


def add_channel(api: Api, token: str, kind: str, url: str, **more: Any) -> dict[str, Any]:
    made = api.call("POST", "/api/me/channels", token, json={"kind": kind, "url": url, **more})
    assert made.status_code == 201, made.json
    return dict(made.json)


def rows(api: Api) -> list[ChannelDelivery]:
    with Session(get_engine(api.app)) as session:
        return list(session.exec(select(ChannelDelivery).order_by(col(ChannelDelivery.id))))


def channel(api: Api, channel_id: int) -> Channel:
    with Session(get_engine(api.app)) as session:
        return session.get_one(Channel, channel_id)


def drain(sender: Deliveries, seconds: float = 15) -> None:
    """Run rounds until nothing is due or under way."""
    end = time.monotonic() + seconds
    while sender.run_once(wait_for=0.1) and time.monotonic() < end:
        pass


def queue_test_delivery(api: Api, channel_id: int) -> None:
    """A test delivery for the channel, due now."""
    with Session(get_engine(api.app)) as session:
        session.execute(
            insert(pings.TABLE), [pings.delivery_row(channel_id, ChannelEvent.TEST, utcnow())]
        )
        session.commit()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A database file: the worker's threads, and a worker process, share it."""
    return f"sqlite:///{tmp_path / 'channels.db'}"


@pytest.fixture
def allowed(api: Api) -> Api:
    reconfigure(api.app, CHANNELS_ALLOW="127.0.0.1/32")
    return api


def sender_of(api: Api, **kwargs: Any) -> Deliveries:
    return Deliveries(get_engine(api.app), settings_of(api.app), **kwargs)


def to_move(api: Api, game_id: int, token: str) -> str:
    return str(api.call("GET", f"/api/games/{game_id}", token).json["to_move"])


def test_your_turn_reaches_each_channel_once_in_the_players_language(allowed: Api) -> None:
    api = allowed
    with hook_receiver() as hook:
        tokens = {name: api.register(name) for name in ("ann", "bob")}
        api.call("PATCH", "/api/me/preferences", tokens["ann"], json={"language": "cs"})
        api.call("PATCH", "/api/me/preferences", tokens["bob"], json={"language": "ru"})
        hooks = {
            name: add_channel(api, tokens[name], "webhook", hook.url(f"/{name}")) for name in tokens
        }
        game = api.call("POST", "/api/games", tokens["ann"], json={"seats": 2}).json
        api.call("POST", f"/api/games/{game['id']}/join", tokens["bob"])
        api.call("POST", f"/api/games/{game['id']}/start", tokens["ann"])
        mover = to_move(api, game["id"], tokens["ann"])
        queued = rows(api)
        assert [(r.event, r.channel_id) for r in queued] == [("your_turn", hooks[mover]["id"])]
        sender = sender_of(api)
        drain(sender)
        drain(sender)  # nothing more
        sender.close()
    [request] = hook.received
    assert request.path == f"/{mover}"
    assert request.headers["webhook-id"] == queued[0].delivery_id
    words = {"ann": "jste na tahu", "bob": "Ваш ход"}[mover]
    assert words in request.json()["data"]["text"]
    assert request.json()["type"] == "your_turn"
    assert request.json()["data"]["game"] == game["id"]
    assert "hand" not in request.json()["data"]
    assert [r.status for r in rows(api)] == ["sent"]


def test_a_turn_queues_the_next_players_ping_in_its_own_transaction(allowed: Api) -> None:
    api = allowed
    game_id, tokens = api.started_game("ann", "bob")
    for name, token in tokens.items():
        add_channel(api, token, "slack", f"http://127.0.0.1:9/{name}")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", mover).json["hints"][0]["turn"]
    played = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        mover,
        json={"turn": hint, "version": state["version"]},
    )
    assert played.status_code == 201
    [row] = rows(api)
    assert (row.event, row.game_id, row.version) == ("your_turn", game_id, played.json["version"])
    other = next(name for name in tokens if name != state["to_move"])
    assert channel(api, row.channel_id).url.endswith(f"/{other}")


def test_a_change_pings_only_active_channels_that_take_it_in_seat_then_channel_order(
    allowed: Api,
) -> None:
    """The pings a turn and a game's end queue (from the readers' one read,
    `server.postbox.recipients`): one per active channel of each recipient that takes the
    event, the recipients in seat order, each one's channels in the order they were made;
    none for a disabled channel or one that does not take it."""
    api = allowed
    game_id, tokens = api.started_game("ann", "bob", "cid")
    made: dict[str, list[dict[str, Any]]] = {name: [] for name in tokens}
    for name, token in tokens.items():
        for number, events in enumerate((["your_turn", "game_over"], ["game_over"], None)):
            more = {} if events is None else {"events": events}
            url = f"http://127.0.0.1:9/{name}/{number}"
            made[name].append(add_channel(api, token, "webhook", url, **more))
    with Session(get_engine(api.app)) as session:  # each player's third channel: disabled
        for name in tokens:
            session.get_one(Channel, made[name][2]["id"]).state = pings.DISABLED
        session.commit()
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = tokens[state["to_move"]]
    hint = api.call("GET", f"/api/games/{game_id}/hints?n=1", mover).json["hints"][0]["turn"]
    played = api.call(
        "POST",
        f"/api/games/{game_id}/turns",
        mover,
        json={"turn": hint, "version": state["version"]},
    ).json
    nxt = played["to_move"]
    assert [(r.event, r.channel_id, r.version) for r in rows(api)] == [
        ("your_turn", made[nxt][0]["id"], played["version"])
    ]
    for _ in range(2):  # two of three resign: the game is over
        quitter = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["to_move"]
        assert api.call("POST", f"/api/games/{game_id}/resign", tokens[quitter]).status_code == 200
    final = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert final["status"] == "finished"
    over = [(r.event, r.channel_id) for r in rows(api) if r.event == "game_over"]
    assert over == [
        ("game_over", made[name][number]["id"]) for name in final["players"] for number in (0, 1)
    ]
    delivered = rows(api)
    assert all(
        r.status == "pending" and r.attempts == 0 and r.game_id == game_id for r in delivered
    )
    assert all(r.payload is None for r in delivered)
    ids = [r.delivery_id for r in delivered]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"msg_[0-9a-f]{32}", i) for i in ids), ids


def test_410_disables_the_channel_and_tells_its_owner(allowed: Api) -> None:
    api = allowed
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(410, body=b"gone")
        token = api.register("ann")
        made = add_channel(api, token, "discord", hook.url())
        queue_test_delivery(api, made["id"])
        sender = sender_of(api)
        drain(sender)
        queue_test_delivery(api, made["id"])  # for a channel disabled by now
        drain(sender)
        sender.close()
    assert len(hook.received) == 1  # the second delivery is not sent
    disabled = channel(api, made["id"])
    assert disabled.state == "disabled" and "410" in (disabled.disabled_reason or "")
    assert [r.status for r in rows(api)] == ["failed", "failed"]
    mail = [m for m in api.outbox() if m.kind == "channel_disabled"]
    assert [m.to_addr for m in mail] == ["ann@example.com"]
    listed = api.call("GET", "/api/me/channels", token).json["channels"][0]
    assert listed["state"] == "disabled" and listed["last_error"] == "HTTP 410: gone"


def test_429_waits_for_retry_after(allowed: Api) -> None:
    api = allowed
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(429, {"Retry-After": "120"}, b"slow down")
        token = api.register("ann")
        made = add_channel(api, token, "slack", hook.url())
        queue_test_delivery(api, made["id"])
        before = datetime.now(UTC)
        sender = sender_of(api)
        drain(sender)
        drain(sender)
        sender.close()
    assert len(hook.received) == 1
    [row] = rows(api)
    assert row.status == "pending" and row.attempts == 1
    available = row.available_at.replace(tzinfo=UTC)
    assert available >= before + timedelta(seconds=119)


def test_a_receiver_that_never_answers_delays_nothing_else(allowed: Api) -> None:
    api = allowed
    with hook_receiver() as dead, hook_receiver() as alive:
        dead.answer = lambda _r: Reply(200, delay=12)
        ann, bob = api.register("ann"), api.register("bob")
        slow = add_channel(api, ann, "slack", dead.url())
        fast = add_channel(api, bob, "slack", alive.url())
        queue_test_delivery(api, slow["id"])
        sender = sender_of(api)
        sender.run_once()  # the dead receiver's delivery is under way
        started = time.monotonic()
        queue_test_delivery(api, fast["id"])
        while not alive.received and time.monotonic() - started < 5:
            sender.run_once(wait_for=0.05)
        landed = time.monotonic() - started
        assert alive.received, "the second channel's delivery did not land"
        assert landed < 2, landed
        drain(sender, 20)
        sender.close()
    dead_row = next(r for r in rows(api) if r.channel_id == slow["id"])
    assert dead_row.status == "pending" and "10 s" in (dead_row.last_error or "")


def test_after_the_schedule_the_channel_is_disabled_and_its_owner_emailed(allowed: Api) -> None:
    api = allowed
    start = datetime.now(UTC)
    with hook_receiver() as hook, use(FakeClock(start)) as clock:
        hook.answer = lambda _r: Reply(503, body=b"down")
        token = api.register("ann")
        made = add_channel(api, token, "slack", hook.url())
        queue_test_delivery(api, made["id"])
        sender = sender_of(api)
        for _ in range(len(deliveries.SCHEDULE) + 1):
            drain(sender)
            [row] = rows(api)
            if row.status != "pending":
                break
            clock.at = row.available_at.replace(tzinfo=UTC) + timedelta(seconds=1)
        sender.close()
        elapsed = clock.at - start
        mail = [m for m in api.outbox() if m.kind == "channel_disabled"]  # due at the fake time
    assert len(hook.received) == len(deliveries.SCHEDULE) + 1
    assert timedelta(days=2.5) < elapsed < timedelta(days=3.5)
    assert rows(api)[0].status == "failed"
    assert channel(api, made["id"]).state == "disabled"
    assert len(mail) == 1 and "HTTP 503" in (mail[0].body or "")


def test_the_retry_schedule_has_jitter_and_honours_retry_after() -> None:
    now = datetime(2026, 12, 2, tzinfo=UTC)
    delays = {deliveries.retry_delay(1, None, now) for _ in range(20)}
    assert len(delays) > 1 and all(4 <= d <= 6 for d in delays if d is not None)
    assert deliveries.retry_delay(1, "600", now) == 600
    assert deliveries.retry_delay(1, "Wed, 02 Dec 2026 00:10:00 GMT", now) == 600
    assert deliveries.retry_delay(1, "999999", now) == deliveries.RETRY_AFTER_MOST
    assert deliveries.retry_delay(len(deliveries.SCHEDULE) + 1, None, now) is None
    assert 2.9 < sum(deliveries.SCHEDULE) / 86400 < 3.1


def test_a_name_that_turns_private_is_refused_at_delivery(allowed: Api) -> None:
    """Created while its name resolved to an allowed address, delivered after it resolves to
    10.0.0.1: refused at delivery, nothing reaches the receiver, the error says why."""
    api = allowed
    with hook_receiver() as hook:
        api.register("ann")
        with Session(get_engine(api.app)) as session:
            ann = session.exec(select(Player).where(Player.name == "ann")).one()
            made = store.add(
                session,
                ann,
                kind="slack",
                url=f"http://hooks.example:{hook.port}/x",
                events=["your_turn"],
                config=settings_of(api.app),
                resolver=fake_resolver({"hooks.example": ["127.0.0.1"]}),
            )
            assert made.id is not None
            made_id = made.id
        queue_test_delivery(api, made_id)
        sender = sender_of(api, resolver=fake_resolver({"hooks.example": ["10.0.0.1"]}))
        drain(sender)
        sender.close()
    assert hook.received == []
    [row] = rows(api)
    assert "10.0.0.1" in (row.last_error or "") and row.status == "pending"


def test_a_redirect_is_a_failure_and_is_not_followed(allowed: Api) -> None:
    api = allowed
    with hook_receiver("127.0.0.2") as inside, hook_receiver() as hook:
        hook.answer = lambda _r: Reply(307, {"Location": inside.url()}, b"")
        token = api.register("ann")
        made = add_channel(api, token, "webhook", hook.url())
        queue_test_delivery(api, made["id"])
        sender = sender_of(api)
        drain(sender)
        sender.close()
    assert inside.received == [] and len(hook.received) == 1
    [row] = rows(api)
    assert row.status == "failed" and "307" in (row.last_error or "")


#: The lease of the test's workers: short, so that the test need not wait the real one (60 s),
#: but, like it, longer than an attempt takes on a loaded machine — with 1 s, a slow attempt's
#: own claim lapsed and was taken again, a third send.
LEASE = 5

KILLED_WORKER = """
import sys
from server.config import load
from server.db import make_engine
from server.jobs.deliveries import Deliveries
config = load(".", {}, {"DATABASE_URL": sys.argv[1], "CHANNELS_ALLOW": "127.0.0.1/32",
                        "SECRET_KEY": "test-secret-of-at-least-thirty-two-bytes"})
sender = Deliveries(make_engine(sys.argv[1]), config, lease=float(sys.argv[2]))
while True:
    sender.run_once(wait_for=0.1)
"""


def test_a_worker_killed_mid_delivery_sends_at_most_twice_with_one_id(
    allowed: Api, tmp_path: Path
) -> None:
    api = allowed
    url = get_engine(api.app).url.render_as_string(hide_password=False)
    with hook_receiver() as hook:
        hook.answer = lambda r: Reply(200, delay=30 if len(hook.received) == 1 else 0)
        token = api.register("ann")
        made = add_channel(api, token, "webhook", hook.url())
        queue_test_delivery(api, made["id"])
        worker = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(KILLED_WORKER), url, str(LEASE)], cwd=tmp_path
        )
        try:
            end = time.monotonic() + 20
            while not hook.received and time.monotonic() < end:
                time.sleep(0.05)
            assert hook.received, "the worker sent nothing"
        finally:
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait()
        time.sleep(LEASE + 0.2)  # the dead worker's lease lapses
        sender = sender_of(api, lease=LEASE)
        drain(sender)
        sender.close()
    assert len(hook.received) == 2
    assert len({r.headers["webhook-id"] for r in hook.received}) == 1
    assert [r.status for r in rows(api)] == ["sent"]


def test_old_finished_deliveries_are_purged_and_waiting_ones_kept(allowed: Api) -> None:
    api = allowed
    token = api.register("ann")
    made = add_channel(api, token, "slack", "http://127.0.0.1:9/x")
    queue_test_delivery(api, made["id"])
    queue_test_delivery(api, made["id"])
    config = settings_of(api.app)
    with Session(get_engine(api.app)) as session:
        first, second = session.exec(select(ChannelDelivery).order_by(col(ChannelDelivery.id)))
        first.status = "sent"
        for row in (first, second):
            row.created_at = utcnow() - timedelta(days=config.mail_keep_days + 1)
            session.add(row)
        session.commit()
        counts = retention.purge(session, config, utcnow())
    assert counts["channel deliveries deleted"] == 1
    assert [r.status for r in rows(api)] == ["pending"]


def test_what_went_wrong_is_said_in_the_owners_language(allowed: Api, dead_port: int) -> None:
    api = allowed
    token = api.register("ann")
    api.call("PATCH", "/api/me/preferences", token, json={"language": "ru"})
    made = add_channel(api, token, "slack", f"http://127.0.0.1:{dead_port}/x")
    queue_test_delivery(api, made["id"])
    sender = sender_of(api)
    drain(sender)
    sender.close()
    assert channel(api, made["id"]).last_error == "соединение отклонено или прервано"


def test_two_workers_at_once_send_each_delivery_once(allowed: Api) -> None:
    api = allowed
    with hook_receiver() as hook:
        hook.answer = lambda _r: Reply(200, delay=0.01)
        token = api.register("ann")
        made = add_channel(api, token, "webhook", hook.url())
        for _ in range(60):
            queue_test_delivery(api, made["id"])
        first, second = sender_of(api, threads=4), sender_of(api, threads=4)
        end = time.monotonic() + 30
        while time.monotonic() < end and (
            first.run_once(wait_for=0.02) + second.run_once(wait_for=0.02)
        ):
            pass
        first.close()
        second.close()
    ids = [r.headers["webhook-id"] for r in hook.received]
    assert len(ids) == 60 and len(set(ids)) == 60
    assert {r.status for r in rows(api)} == {"sent"}
