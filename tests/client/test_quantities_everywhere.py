"""One set of values through the three places players read them — the emails, the web pages
and `cafe` — compared with each other and with `cafe.render.quantities` (issue 20 §7 and §9):
time left, on the service's clock (here an injected one, months away from this machine's,
as a machine whose clock is off or the development clock would be), rounded down and marked
when less than a day is left; the vacation bank in days and hours; a turn's points; league
points and ratings at the end of a season."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from client_support import Cafe, LiveServer, Player, to_move
from flask.testing import FlaskClient
from sqlmodel import Session, select

from cafe.render import quantities
from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs.sweep import sweep
from server.mail.events import prepare
from server.models import OutboxMessage

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # not this machine's time: the service's
D, H, S = timedelta(days=1), timedelta(hours=1), timedelta(seconds=1)


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def emails(server: LiveServer, to: str, kind: str) -> list[OutboxMessage]:
    """The `kind` emails to `to`, rendered as the worker renders them when it sends them
    (now, on the service's clock), or as they were queued."""
    engine = get_engine(server.app)
    with Session(engine, expire_on_commit=False) as session:
        rows = list(session.exec(select(OutboxMessage).where(OutboxMessage.kind == kind)).all())
    waiting = [row for row in rows if row.body is None]
    ready = prepare(engine, settings_of(server.app), waiting).ready if waiting else []
    done = [row for row in rows if row.body is not None and row not in waiting]
    return [row for row in [*done, *ready] if row.to_addr == to]


def signed_in_browser(server: LiveServer, player: Player) -> FlaskClient:
    """A browser signed in as `player`, as the sign-in page does it."""
    browser = server.app.test_client()
    form = browser.get("/signin").text
    sent = browser.post("/signin", data={"csrf": _csrf(form), "email": player.email})
    code = server.code_for(player.email)
    done = browser.post(
        "/signin/code", data={"csrf": _csrf(sent.text), "email": player.email, "code": code}
    )
    assert done.status_code == 303, done.text
    return browser


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


def page_time_left(server: LiveServer, game_id: int) -> tuple[str, bool]:
    """What the game's page says is left, and whether it stands out."""
    page = server.app.test_client().get(f"/games/{game_id}").text
    found = re.search(r'<p class="(notice|problem)">([^<:]+): the deadline is', page)
    assert found, page
    return found.group(2), found.group(1) == "problem"


def test_time_left_is_the_services_and_reads_the_same_in_mail_page_and_cafe(
    clock: FakeClock, cafe: Cafe, ann: Player, bob: Player
) -> None:
    game_id = cafe.started_game(ann, bob)  # a 3-day turn from T0
    mover = to_move([ann, bob], ann.state(game_id))
    deadline = T0 + 3 * D
    for moment in (T0 + 30 * S, T0 + 36 * H + 10 * S, T0 + 2 * D + H + 10 * S):
        clock.advance(moment - clock.at)
        words = quantities.time_left(deadline - moment)
        urgent = deadline - moment < D
        shown = mover.run("show", str(game_id)).stdout
        assert f"deadline {'! ' if urgent else ''}{words} (" in shown
        listed = mover.run("games").stdout  # under the heading "time left"
        assert f"{'! ' if urgent else ''}{words.removesuffix(' left')}  " in listed
        assert page_time_left(cafe.server, game_id) == (words.capitalize(), urgent)
    assert [quantities.time_left(deadline - m) for m in (T0 + 30 * S, T0 + 36 * H + 10 * S)] == [
        "2 days 23 hours left",  # never "3 days"
        "1 day 11 hours left",
    ]
    sweep(get_engine(cafe.server.app), settings_of(cafe.server.app))  # the reminders due by now
    reminders = emails(cafe.server, mover.email, "reminder")
    assert reminders and all(m.body for m in reminders)
    assert "22 hours 59 minutes left in game" in reminders[-1].body  # as cafe and the page


def test_the_bank_and_a_turns_points_read_the_same_in_mail_page_and_cafe(
    clock: FakeClock, cafe: Cafe, ann: Player, bob: Player
) -> None:
    game_id = cafe.started_game(ann, bob)
    mover = to_move([ann, bob], ann.state(game_id))
    other = bob if mover is ann else ann
    played = mover.run("move", str(game_id), *mover.best_turn(game_id).split())
    state = other.state(game_id)
    points = state["scores"][state["players"].index(mover.name)]
    assert f" for {quantities.points(points)}." in played.stdout
    [your_turn] = emails(cafe.server, other.email, "your_turn")
    assert f"1. {mover.name} played " in your_turn.body
    assert f" for {quantities.points(points)}\n" in your_turn.body
    page = cafe.server.app.test_client().get(f"/games/{game_id}").text
    assert f"</code> ({quantities.signed(points)})" in page
    clock.advance(2 * D + 3 * H)  # 51 hours off vacation earn 6 hours: 14 days 6 hours
    declared = other.run("vacation", "start", "1")
    bank = quantities.bank(14 * 24 + 6 - 24)
    assert bank == "13 days 6 hours"
    assert f"Vacation bank: {bank}." in declared.stdout
    [started] = emails(cafe.server, other.email, "vacation_started")
    assert f"Your vacation bank holds {bank} now." in started.body
    assert f"<b>{bank}</b>" in signed_in_browser(cafe.server, other).get("/settings").text


def test_league_points_and_ratings_read_the_same_in_mail_page_and_cafe(cafe: Cafe) -> None:
    players = [cafe.sign_up(name) for name in ("ann", "bob", "cid", "dan")]
    league = f"club-{uuid.uuid4().hex[:8]}"
    organiser = players[0]
    for command in (("league", "create", league, "--game-size", "2", "--division-size", "4"),
                    ("league", "open", league)):  # fmt: skip
        assert organiser.run(*command).exit_code == 0
    for player in players:
        assert player.run("league", "join", league).exit_code == 0
    assert organiser.run("league", "start", league).exit_code == 0
    season = cafe.server.call("GET", f"/api/leagues/{league}/seasons/1", organiser.token).json()
    for game_id in season["divisions"][0]["games"]:
        state = cafe.server.call("GET", f"/api/games/{game_id}", organiser.token).json()
        loser = next(p for p in players if p.name == min(state["players"]))
        assert cafe.server.call("POST", f"/api/games/{game_id}/resign", loser.token).ok
    finished = cafe.server.call("GET", f"/api/leagues/{league}/seasons/1", organiser.token).json()
    table = finished["divisions"][0]["standings"]
    season_page = cafe.server.app.test_client().get(f"/leagues/{league}/seasons/1").text
    standings = organiser.run("league", "standings", league).stdout
    for row in table:
        name, points = row["player"], quantities.league_points(row["points"])
        cells = season_page.split(f">{name}</a>", 1)[1].split('<td class="num">')
        assert cells[1].split("</td>")[0] == points  # the points, the cell after the name
        assert re.search(rf"\b{name} +{re.escape(points)} ", standings)
        [mail] = [b for b in cafe.server.postbox(f"{name}@example.com") if "is over" in b]
        assert re.search(rf"^  [ >] +{row['place']}  {name} +{re.escape(points)} ", mail, re.M)
    me = players[-1]
    rated = cafe.server.call("GET", f"/api/players/{me.name}", me.token).json()["rating"]
    ordinal = quantities.rating(rated["ordinal"])
    mu, sigma = quantities.rating(rated["mu"]), quantities.rating(rated["sigma"])
    assert re.fullmatch(r"-?\d+\.\d", ordinal)
    assert f"rating {ordinal} (mu {mu}, sigma {sigma})" in me.run("rating", me.name).stdout
    profile = cafe.server.app.test_client().get(f"/players/{me.name}").text
    assert f"Ordinal <b>{ordinal}</b>" in profile and f"<dd>{mu}</dd>" in profile
    [mail] = [b for b in cafe.server.postbox(me.email) if "is over" in b]
    assert f"Your rating is now {ordinal} (" in mail and f"mu {mu}, sigma {sigma}" in mail
    ratings = cafe.server.app.test_client().get("/ratings?page=1").text
    assert f'<td class="num">{ordinal}</td>' in ratings
