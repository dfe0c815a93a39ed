"""A whole league as its members and organiser live it (issue 20, "Done when"): season 1 of
two divisions with a withdrawal, an organiser's removal, a pause and its resumption, and an
adjudication; season 2 with a newcomer. At every state (registration, running, finished)
every league page answers every kind of viewer; the mail to each member leaves in the order
its events happened; and season 2 says where each member plays and why."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from league_support import finish_all
from mail_support import outbox_rows
from server_support import signed_in, walk
from sqlmodel import Session, col, select

from server.clock.timesource import FakeClock, use
from server.db import get_engine
from server.models import OutboxMessage

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal", "ivy"]
#: Nine players in games of three, divisions of four: divisions of 5 and 4, one up, one down.
LEAGUE = {
    "name": "Tuesday Club",
    "slug": "tuesday",
    "game_size": 3,
    "division_size": 4,
    "promote": 1,
    "relegate": 1,
    "clock": {"days_per_turn": 3, "timeout": "autoplay", "max_timeouts": 2, "vacation": True},
}
#: Who joins for season 2: nine players again, with the two who left season 1 gone.
NEWCOMERS = ["kim", "lou"]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def ok(response, status=200):
    assert response.status_code == status, response.json
    return response.json


def season_path(number: int) -> str:
    return f"/api/leagues/tuesday/seasons/{number}"


def pages(season: dict) -> list[str]:
    """Every league page of the season: the list, the league, the season, its divisions."""
    number = season["number"]
    divisions = [
        f"/leagues/tuesday/seasons/{number}/divisions/{d['number']}"
        for d in season.get("divisions", [])
    ]
    return ["/leagues", "/leagues/tuesday", f"/leagues/tuesday/seasons/{number}", *divisions]


def sent_in_order(api) -> dict[str, list[str]]:
    """Each recipient's mail: the kinds in the order it was delivered, once checked to be
    the order it was queued in (the order of the events)."""
    api.send_events()
    with Session(get_engine(api.app)) as session:
        rows = session.exec(
            select(OutboxMessage)
            .where(OutboxMessage.status == "sent")
            .order_by(col(OutboxMessage.id))
        ).all()
        queued: dict[str, list[tuple[str, str]]] = {}
        for row in rows:
            queued.setdefault(row.to_addr, []).append((row.message_id, row.kind))
    kinds: dict[str, list[str]] = {}
    for to, messages in queued.items():
        delivered = [m["Message-ID"] for m in api.sink.messages if m["To"] == to]
        assert delivered == [message_id for message_id, _ in messages], to
        kinds[to.split("@")[0]] = [kind for _, kind in messages]
    return kinds


@pytest.mark.slow  # about 20 s: two seasons, every page for up to ten viewers at each step
@pytest.mark.postgres
def test_a_whole_league_of_two_seasons(api, backend, clock):
    tokens = {name: api.register(name) for name in [*NAMES, *NEWCOMERS, "zed"]}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=LEAGUE), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    for name in NAMES:
        ok(api.call("POST", f"{season_path(1)}/register", tokens[name]))
    viewers = {
        "signed out": api.app.test_client(),
        "stranger": signed_in(api, "zed"),
        "organiser": signed_in(api, "ann"),
    }
    walk(viewers, pages({"number": 1}), "season 1 registration")

    one = ok(api.call("POST", f"{season_path(1)}/start", tokens["ann"]))
    first, second = one["divisions"]
    assert first["players"] == ["ann", "bob", "cid", "dan", "eve"]
    assert second["players"] == ["fay", "gus", "hal", "ivy"]
    viewers["member"] = signed_in(api, "bob")
    viewers["member of the other division"] = signed_in(api, "hal")
    walk(viewers, pages(one), "season 1 running")

    ok(api.call("POST", f"{season_path(1)}/withdraw", tokens["cid"]))
    removal = {"player": "gus", "reason": "his mail bounces"}
    ok(api.call("POST", f"{season_path(1)}/remove", tokens["ann"], json=removal))
    viewers["withdrew"] = signed_in(api, "cid")
    viewers["removed"] = signed_in(api, "gus")
    walk(viewers, pages(one), "season 1 running, after a withdrawal and a removal")

    clock.advance(DAY)
    ok(api.call("POST", f"{season_path(1)}/pause", tokens["ann"], json={"reason": "holidays"}))
    walk(viewers, pages(one), "season 1 paused")
    clock.advance(5 * DAY)
    ok(api.call("POST", f"{season_path(1)}/resume", tokens["ann"], json={}))
    stuck = next(
        game_id
        for game_id in second["games"]
        if ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))["status"] == "active"
    )
    body = {"reason": "a dispute the rules do not settle"}
    ok(api.call("POST", f"/api/games/{stuck}/adjudicate", tokens["ann"], json=body))
    finish_all(api, tokens, one)
    done = ok(api.call("GET", season_path(1)))
    assert done["status"] == "finished"
    walk(viewers, pages(done), "season 1 finished")
    log = ok(api.call("GET", f"{season_path(1)}/log"))["entries"]
    assert [e["action"] for e in log] == ["remove", "pause", "resume", "adjudicate"]
    table = [[(r["player"], r["left"]) for r in d["standings"]] for d in done["divisions"]]
    assert table[0][-1] == ("cid", "withdrew") and table[1][-1] == ("gus", "removed")
    # the tables' ties depend on the games' deals: the moves follow the tables
    down, up = table[0][-2][0], table[1][0][0]  # the last still in and the top
    moves = [(m["player"], m["direction"]) for m in done["moves"]]
    assert moves == sorted([(down, "down"), (up, "up")])

    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    for newcomer in NEWCOMERS:
        ok(api.call("POST", f"{season_path(2)}/register", tokens[newcomer]))
    viewers["newcomer"] = signed_in(api, "kim")
    walk(viewers, pages(done) + pages({"number": 2}), "season 2 registration")
    two = ok(api.call("POST", f"{season_path(2)}/start", tokens["ann"]))
    # nine players: divisions of 5 and 4; division 1 keeps the one it sent down to fill
    # its fifth place
    stayed = {name for name, left in table[0][:-2]} | {name for name, left in table[1][1:-1]}
    why = {
        **{name: ("stayed", 1 if name in dict(table[0]) else 2) for name in stayed},
        up: ("up", 2),
        down: ("filled", 1),
        **dict.fromkeys(NEWCOMERS, ("new", None)),
    }
    placed = {
        r["player"]: (d["number"], r["placed"], r["placed_from"])
        for d in two["divisions"]
        for r in d["standings"]
    }
    division = {name: 1 if name in dict(table[0]) or name == up else 2 for name in why}
    division[down] = 1
    assert placed == {name: (division[name], *why[name]) for name in why}
    walk(viewers, pages(done) + pages(two), "season 2 running")
    page = api.client.get("/leagues/tuesday/seasons/2").text
    said = {
        up: "moved up from division 2",
        down: "stayed in division 1 to fill a place",
        "hal" if up != "hal" else "fay": "stayed in division 2",
        "kim": "new this season",
    }
    # the last season-start email to each member is season 2's
    started = {
        row.to_addr.split("@")[0]: row for row in outbox_rows(api.app, "league_season_started")
    }
    for name, reason in said.items():
        assert f'<span class="why">{reason}</span>' in page, name
        assert f"({reason}) with" in " ".join(started[name].body.split()), name

    mail = sent_in_order(api)
    for name in NAMES:
        kinds = [kind for kind in mail[name] if kind != "signin_code"]
        season_one = kinds[: kinds.index("league_season_finished") + 1]
        assert season_one[0] == "league_season_started", name
        assert kinds.count("league_season_finished") == 1, name  # the withdrawn too, once
        assert "game_over" not in kinds[len(season_one) :], name
        if name not in ("cid", "gus"):  # the two who had left were not told of the pause
            assert season_one.index("league_paused") < season_one.index("league_resumed"), (
                name,
                kinds,
            )
            assert kinds[len(season_one) :] == ["league_registration", "league_season_started"]
    assert mail["gus"].index("league_removed") < mail["gus"].index("game_over")
    for newcomer in NEWCOMERS:
        assert [kind for kind in mail[newcomer] if kind != "signin_code"] == [
            "league_season_started"
        ]
