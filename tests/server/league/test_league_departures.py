"""A season lived with departures (issue 20 §3, §10, §16): a member who withdrew after
winning a game, one the organiser removed, and one removed on time from every game they
had left are listed below every member still in their division, without a place, marked
how they left, whatever their points; their finished games count for their opponents. The
counts agree everywhere, running games say whose turn it is and the time left, time-outs
are marked, and everyone — those who left too, once each — gets the season-finished email.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from league_support import ok, opened, prefer
from mail_support import outbox_rows
from sqlmodel import Session, select

from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs.sweep import sweep
from server.league import check, store, withdrawal
from server.models import MemberLeft, Player

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal", "ivy"]
CLOCK = {"days_per_turn": 1, "timeout": "autoplay", "max_timeouts": 1, "vacation": False}


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def game(api, tokens, game_id):
    return ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))


def still_in(state):
    return [n for n, out in zip(state["players"], state["eliminated"], strict=True) if not out]


def play(api, tokens, game_id):
    """The player to move plays their best turn."""
    state = game(api, tokens, game_id)
    mover = state["to_move"]
    [hint] = ok(api.call("GET", f"/api/games/{game_id}/hints?n=1", tokens[mover]))["hints"]
    body = {"turn": hint["turn"], "version": state["version"]}
    ok(api.call("POST", f"/api/games/{game_id}/turns", tokens[mover], json=body), 201)


def end(api, tokens, game_id, winner=None):
    """The players still in resign (in name order) until one is left: `winner` if given."""
    for name in sorted(still_in(game(api, tokens, game_id)), key=lambda n: (n == winner, n))[:-1]:
        if game(api, tokens, game_id)["status"] == "active":
            ok(api.call("POST", f"/api/games/{game_id}/resign", tokens[name]))


def season(api, number=1):
    return ok(api.call("GET", f"/api/leagues/tuesday/seasons/{number}"))


def rows_of(found):
    return {row["player"]: row for d in found["divisions"] for row in d["standings"]}


def games_of(api, tokens, found, name):
    ids = [g for d in found["divisions"] for g in d["games"]]
    return [g for g in ids if name in game(api, tokens, g)["players"]]


def remove_on_time(api, tokens, clock, ghost):
    """`ghost` never plays: the others play up to the ghost's turn in each of the ghost's
    games, the clock passes the deadlines, the sweep acts — a turn played for them the
    first time, their removal the second (the league's `max_timeouts` is 1)."""
    engine, config = get_engine(api.app), settings_of(api.app)
    ghostly = games_of(api, tokens, season(api), ghost)
    for _ in range(2):
        deadlines = []
        for game_id in ghostly:
            while (state := game(api, tokens, game_id))["status"] == "active" and state[
                "to_move"
            ] != ghost:
                play(api, tokens, game_id)
            if state["status"] == "active":
                deadlines.append(datetime.fromisoformat(state["deadline"]))
        clock.advance(max(deadlines) - clock() + timedelta(minutes=1))
        assert sweep(engine, config).timeouts


@pytest.mark.postgres
def test_who_left_is_listed_last_marked_counted_apart_and_told(api, clock):
    tokens = opened(api, NAMES, clock=CLOCK)
    prefer(api, tokens["bob"], timezone="Europe/Prague")
    started = ok(api.call("POST", "/api/leagues/tuesday/seasons/1/start", tokens["ann"]))
    one, two = (set(d["players"]) for d in started["divisions"])
    assert {"bob", "cid"} <= one and "gus" in two

    # bob wins a game, then withdraws; the organiser removes cid
    won = games_of(api, tokens, started, "bob")[0]
    end(api, tokens, won, winner="bob")
    ok(api.call("POST", "/api/leagues/tuesday/seasons/1/withdraw", tokens["bob"]))
    with api.app.app_context(), Session(get_engine(api.app)) as session:
        league = store.load_league(session, "tuesday")
        cid = session.exec(select(Player).where(Player.name == "cid")).one()
        withdrawal.withdraw(
            session,
            league=league,
            number=1,
            player=cid,
            how=MemberLeft.REMOVED,
            config=settings_of(api.app),
        )

    running = season(api)
    rows = rows_of(running)
    assert rows["bob"]["points"] > 0 and rows["bob"]["left"] == "withdrew"
    assert rows["cid"]["left"] == "removed"
    division = next(d for d in running["divisions"] if d["number"] == 1)
    table = [(r["place"], r["player"]) for r in division["standings"]]
    # below every member still in, in the table's order among themselves: league points,
    # then score sum (bob's withdrawal may have won cid games, so either may come first)
    assert sorted(table[-2:]) == [(None, "bob"), (None, "cid")]
    left = [rows[name] for _, name in table[-2:]]
    assert [(-r["points"], -r["score_sum"]) for r in left] == sorted(
        (-r["points"], -r["score_sum"]) for r in left
    )
    assert [place for place, _ in table[:-2]] == [1, 2, 3]

    # the counts: the members still in, those who left apart, the same everywhere
    listed = ok(api.call("GET", "/api/leagues"))["leagues"][0]
    brief = ok(api.call("GET", "/api/leagues/tuesday"))["seasons"][0]
    assert (listed["players"], listed["left"]) == (brief["players"], brief["left"]) == (7, 2)
    assert (len(running["registered"]), len(running["withdrawn"])) == (7, 2)
    page = api.client.get("/leagues/tuesday/seasons/1").text
    assert "7 players; 2 have left" in page and "3 players; 2 have left" in page
    assert "7 players; 2 have left" in api.client.get("/leagues/tuesday").text
    assert "7 players; 2 have left" in api.client.get("/leagues").text
    # running games: whose turn it is and the time left, on the season's page
    for game_id in running["divisions"][1]["games"]:
        state = game(api, tokens, game_id)
        row = re.search(rf'href="/games/{game_id}">Game {game_id}</a>.*?</tr>', page, re.S)
        assert row is not None
        assert f'>{state["to_move"]}</a> to move, <span class="nowrap">1 day left' in row[0]
    assert "(withdrew)" in page and "(removed by the organiser)" in page

    ghostly = games_of(api, tokens, running, "gus")
    for game_id in [g for d in running["divisions"] for g in d["games"] if g not in ghostly]:
        end(api, tokens, game_id)  # only the ghost's games run on: nobody else times out
    remove_on_time(api, tokens, clock, "gus")
    running = season(api)
    gus = rows_of(running)["gus"]
    assert gus["left"] == "removed_on_time" and gus["place"] is None
    assert gus["timeouts"] == 2 * len(ghostly)
    assert running["divisions"][1]["standings"][-1]["player"] == "gus"
    page = api.client.get("/leagues/tuesday/seasons/1/divisions/2").text
    assert "(removed on time)" in page and f"{2 * len(ghostly)} time-outs" in page
    assert "3 players; 1 has left" in page

    for game_id in ghostly:
        if game(api, tokens, game_id)["status"] == "active":
            end(api, tokens, game_id)
    finished = season(api)
    assert finished["status"] == "finished"
    assert finished["withdrawn"] == ["bob", "cid", "gus"]
    moving = {m["player"] for m in finished["moves"]}
    assert not moving & {"bob", "cid", "gus"}
    with Session(get_engine(api.app)) as session:
        assert check.differences(session)[1] == []

    told = outbox_rows(api.app, "league_season_finished")
    assert sorted(r.to_addr for r in told) == sorted(f"{n}@example.com" for n in NAMES)
    [bob] = [r for r in told if r.to_addr == "bob@example.com"]
    assert bob.subject == "Tuesday Club: season 1 is over, the final table of division 1"
    text = " ".join(bob.body.split())
    assert "You withdrew from the season: you hold no place" in text
    assert re.search(r"^  >  -  bob +\d+ .* withdrew$", bob.body, re.M)
    assert "you stay in division" not in text and "eliminated" not in bob.body
    [gus_mail] = [r for r in told if r.to_addr == "gus@example.com"]
    assert "You were removed on time from every game you had left" in " ".join(
        gus_mail.body.split()
    )
    [cid_mail] = [r for r in told if r.to_addr == "cid@example.com"]
    assert re.search(r"^  >  -  cid .*\n +\(removed by the organiser\)$", cid_mail.body, re.M)
    [ann] = [r for r in told if r.to_addr == "ann@example.com"]
    assert "refilling can change them when the next season starts" in " ".join(ann.body.split())

    opened_two = ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    assert sorted(opened_two["registered"]) == sorted(set(NAMES) - {"bob", "cid", "gus"})
