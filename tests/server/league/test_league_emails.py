"""The league's emails (issue 12 §3) for a real season run through the API: registration
opened, season started, the weekly digest the sweep sends, season finished — each as text
that fits 100 columns and as HTML for a phone, following the players' preferences."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from league_support import NAMES, finish, ok, opened, prefer, start
from mail_support import assert_text_fits, outbox_rows, read_html
from sqlmodel import Session, select

from cafe.i18n import speaking
from cafe.league.table import Move, TableRow
from server.clock.timesource import FakeClock, use
from server.config import settings_of
from server.db import get_engine
from server.jobs import league_digest as digest
from server.jobs.sweep import sweep
from server.league import messages, ratings
from server.models import Season
from server.postbox.addresses import read_season_reply_address
from server.postbox.facts import Links, Recipient

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
WEEK = timedelta(days=7)
SEASON_URL = "http://cafe.test/leagues/tuesday/seasons/1"
#: The short link to it that the text parts give (it leads there).
SEASON_LINK = "http://cafe.test/leagues/tuesday/1"


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with use(FakeClock(T0)) as fake:
        yield fake  # type: ignore[misc]


def mails(api, kind, name=None):
    """The rendered rows of `kind` (to `name` only, if given), oldest first."""
    rows = outbox_rows(api.app, kind)
    return [r for r in rows if name is None or r.to_addr == f"{name}@example.com"]


def readable(row):
    """Check a rendered league email's parts: text within 100 columns, HTML the standard
    library reads, tables of width 100%; the HTML's text."""
    assert_text_fits(row.body)
    assert "<table" not in row.html or "width:100%" in row.html
    return " ".join(" ".join(read_html(row.html).text).split())


def flat(text):
    """The text with its lines joined: sentences as said, wherever they were wrapped."""
    return " ".join(text.split())


@pytest.mark.postgres
def test_season_started_is_one_email_with_the_division_opponents_games_and_clock(api):
    tokens = opened(api)
    prefer(api, tokens["hal"], turn_emails="none", timezone="Europe/Prague")
    prefer(api, tokens["bob"], timezone="Europe/Prague")
    before = len(api.outbox())
    season = start(api, tokens)
    started = mails(api, "league_season_started")
    assert sorted(r.to_addr for r in started) == sorted(
        f"{n}@example.com" for n in NAMES if n != "hal"
    )
    since = api.outbox()[before:]  # every event rendered as the worker would
    assert [r.kind for r in since] == ["league_season_started"] * len(started)  # no flood
    division = next(d for d in season["divisions"] if "bob" in d["players"])
    [bob] = mails(api, "league_season_started", "bob")
    assert bob.subject == (
        f"Tuesday Club: season 1 has started, you play in division {division['number']}"
    )
    text, html = bob.body, readable(bob)
    opponents = ", ".join(n for n in sorted(division["players"]) if n != "bob")
    assert (
        f"You play in division {division['number']} (placed by rating) with {opponents}."
        in flat(text)
    )
    mine, first = [], []
    for game_id in division["games"]:
        game = ok(api.call("GET", f"/api/games/{game_id}", tokens["bob"]))
        if "bob" not in game["players"]:
            assert f"game {game_id} " not in text
            continue
        mine.append(game_id)
        others = ", ".join(n for n in game["players"] if n != "bob")
        assert f"  game {game_id} with {others}\n" in text
        assert f"http://cafe.test/games/{game_id}" in text
        assert f'href="http://cafe.test/games/{game_id}"' in bob.html
        if game["to_move"] == "bob":
            first.append(game_id)
            assert re.search(rf"game {game_id} with .*\n    your move, by \w+,? .* CET\n", text)
        else:
            assert f"game {game_id} with {others}\n    {game['to_move']} begins\n" in text
    assert f"your {len(mine)} games all start now" in text and f"your {len(mine)} games" in html
    if first:
        begin = f"game {first[0]}" if len(first) == 1 else f"{len(first)} of them"
        assert f"You begin {begin}. Play on the game's page, with `cafe show ID`" in flat(text)
        assert "or by replying to this email: one line per game" in flat(text)
        assert f"\n    {first[0]}: ESm@ES1\n" in text  # the line to reply with, for a game
    assert "3 days a turn; when time runs out your best turn is played for you" in flat(text)
    assert SEASON_LINK in text and f'href="{SEASON_URL}"' in bob.html
    assert "cafe league leave tuesday" in text and "cafe league leave tuesday" in html


def test_registration_emails_of_a_second_season_and_of_an_invitation(api):
    names = ["ann", "bob", "cid", "dan"]
    tokens = {name: api.register(name) for name in [*names, "eve", "fay"]}
    settings = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 2, "open": False}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=settings), 201)
    invitees = {"names": names[1:]}  # the organiser may play uninvited
    ok(api.call("POST", "/api/leagues/tuesday/invitations", tokens["ann"], json=invitees))
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    invited = mails(api, "league_registration")
    assert sorted(r.to_addr for r in invited) == [f"{n}@example.com" for n in names[1:]]
    for name in names:
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens[name]))
    finish(api, tokens, start(api, tokens))
    prefer(api, tokens["dan"], turn_emails="none")
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    returning = mails(api, "league_registration")[len(invited) :]
    assert sorted(r.to_addr for r in returning) == [f"{n}@example.com" for n in names[:3]]
    [bob] = [r for r in returning if r.to_addr == "bob@example.com"]
    assert bob.subject == "Tuesday Club: registration for season 2 is open"
    assert "you are registered for this one" in bob.body and "Reply-To" not in bob.headers
    assert "\n    cafe league leave tuesday\n" in bob.body
    assert "cafe league leave tuesday" in readable(bob)
    assert "cafe league join" not in bob.body

    ok(api.call("POST", "/api/leagues/tuesday/invitations", tokens["ann"], json={"names": ["eve"]}))
    [eve] = mails(api, "league_registration", "eve")
    assert "\n    cafe league join tuesday\n" in eve.body
    assert "reply to this email with the word: join" in eve.body
    assert "reply to this email with the word join" in readable(eve)
    config = settings_of(api.app)
    signed = read_season_reply_address(
        config.secret_key, config.mail_domain, eve.headers["Reply-To"]
    )
    with Session(get_engine(api.app)) as session:
        second = session.exec(select(Season).where(Season.number == 2)).one()
    assert signed is not None and signed.season_id == second.id
    assert "http://cafe.test/leagues/tuesday/2\n" in eve.body  # the short link, for text


def digests(api, name=None):
    return mails(api, "league_digest", name)


@pytest.mark.postgres
def test_the_weekly_digest_once_a_week_not_twice_and_not_for_none(api, clock):
    tokens = opened(api, clock={"days_per_turn": 10})
    prefer(api, tokens["hal"], turn_emails="none")
    prefer(api, tokens["cid"], timezone="Europe/Prague")
    season = start(api, tokens)
    engine, config = get_engine(api.app), settings_of(api.app)
    assert sweep(engine, config).league_digests == 0 and digests(api) == []

    clock.advance(WEEK + timedelta(minutes=1))
    assert sweep(engine, config).league_digests == 1
    assert sweep(engine, config).league_digests == 0  # the second sweep finds nothing due
    sent = digests(api)
    assert sorted(r.to_addr for r in sent) == sorted(
        f"{n}@example.com" for n in NAMES if n != "hal"
    )
    with Session(engine) as session:
        due = session.exec(select(Season.digest_due)).one()
    assert due == T0 + 2 * WEEK

    [cid] = digests(api, "cid")
    division = next(d for d in season["divisions"] if "cid" in d["players"])
    assert cid.subject.startswith(f"Tuesday Club: the week in division {division['number']}")
    lines = cid.body.splitlines()
    header = lines.index("     #  player                   points  score  won  games")
    table = lines[header + 1 : header + 1 + len(division["players"])]
    assert sorted(line.split()[-5] for line in table) == sorted(division["players"])
    [mine] = [line for line in table if line.startswith("  >")]
    assert mine.split()[2] == "cid"
    waiting = [
        game_id
        for game_id in division["games"]
        if ok(api.call("GET", f"/api/games/{game_id}", tokens["cid"]))["to_move"] == "cid"
    ]
    for game_id in waiting:
        assert re.search(rf"  game {game_id} with .*\n    your move, by \w+,? .* CET\n", cid.body)
    assert len(re.findall(r"your move, by", cid.body)) == len(waiting)
    html = readable(cid)
    assert "cid (you)" in html and SEASON_LINK in cid.body

    clock.advance(WEEK)
    assert sweep(engine, config).league_digests == 1
    assert len(digests(api)) == 2 * len(sent)


def test_two_workers_claiming_one_digest_queue_it_once(api, clock):
    tokens = opened(api)
    start(api, tokens)
    clock.advance(WEEK)
    engine, config = get_engine(api.app), settings_of(api.app)
    with Session(engine) as session:
        [(season_id, due)] = session.exec(digest.due_seasons(clock())).all()
    with Session(engine) as first, Session(engine) as second:
        assert digest.send_digest(first, season_id, due, config=config) == len(NAMES)
        assert digest.send_digest(second, season_id, due, config=config) is None
    assert len(digests(api)) == len(NAMES)


def test_after_weeks_without_a_sweep_one_digest_and_the_next_due_a_week_on(api, clock):
    tokens = opened(api)
    start(api, tokens)
    clock.advance(3 * WEEK + timedelta(hours=1))
    assert sweep(get_engine(api.app), settings_of(api.app)).league_digests == 1
    with Session(get_engine(api.app)) as session:
        assert session.exec(select(Season.digest_due)).one() == T0 + 4 * WEEK
    assert len(digests(api)) == len(NAMES)


@pytest.mark.postgres
def test_season_finished_sends_the_final_table_moves_and_new_rating(api):
    tokens = opened(api)
    prefer(api, tokens["hal"], turn_emails="none")
    season = start(api, tokens)
    with Session(get_engine(api.app)) as session:
        assert session.exec(select(Season.digest_due)).one() is not None
    finished = finish(api, tokens, season)
    assert finished["status"] == "finished"
    with Session(get_engine(api.app)) as session:
        assert session.exec(select(Season.digest_due)).one() is None
    rows = mails(api, "league_season_finished")
    assert sorted(r.to_addr for r in rows) == sorted(
        f"{n}@example.com" for n in NAMES if n != "hal"
    )
    moves = {m["player"]: m for m in finished["moves"]}
    for name in ("cid", "eve", "gus"):
        [row] = mails(api, "league_season_finished", name)
        division = next(d for d in finished["divisions"] if name in d["players"])
        standing = next(s for s in division["standings"] if s["player"] == name)
        assert row.subject == (
            f"Tuesday Club: season 1 is over, you placed {standing['place']} "
            f"in division {division['number']}"
        )
        text = row.body
        mine = [line for line in text.splitlines() if line.startswith("  > ")]
        assert len(mine) == 1 and mine[0].split()[1:3] == [str(standing["place"]), name]
        for other in division["standings"]:
            assert re.search(rf"^  [ >]  ?{other['place']}  {other['player']} ", text, re.M)
        move = moves.get(name)
        if move is None:
            assert f"you stay in division {division['number']}" in text
        else:
            assert f"you move {move['direction']} to division {move['to_division']}" in text
        for other in moves.values():
            assert f"{other['player']}, from division {other['from_division']}" in text
        rating = ok(api.call("GET", f"/api/players/{name}"))["rating"]
        assert f"Your rating is now {rating['ordinal']:.1f} (" in text
        assert f"mu {rating['mu']:.1f}, sigma {rating['sigma']:.1f}" in flat(text)
        change = rating["ordinal"] - (25 - 3 * 25 / 3)
        assert f"({change:+.1f} this season; it was 0.0)" in text
        html = readable(row)
        assert f"{name} (you)" in html and f"Your rating is now {rating['ordinal']:.1f}" in html
    assert any("moves up" in r.body for r in rows) and any("moves down" in r.body for r in rows)


def test_the_longest_names_still_fit_the_text_width_and_a_phone():
    """A 64-character league name and a division of twelve 24-character names."""
    names = [f"{letter * 23}{n % 10}" for n, letter in enumerate("abcdefghijkl")]
    you = Recipient(1, names[0], "a@example.com", timezone="America/Argentina/Buenos_Aires")
    clock = {"days_per_turn": 30, "timeout": "autoplay", "max_timeouts": 5, "vacation": False}
    season = messages.SeasonFacts("L" * 64, "s" * 32, 123, 4, clock)
    links = Links("https://cafe.example", "play+s1-p1-x@cafe.example", "https://cafe.example/u/x")
    rows = [TableRow(name, Fraction(100, 3), 1234, 11, 11) for name in names]
    games = [
        messages.LeagueGame(1_000_000 + n, [names[0], *names[n + 1 : n + 4]], names[0], T0)
        for n in range(9)
    ]
    moves = [Move(names[0], 2, 1), Move(names[-1], 2, 3)]
    change = messages.RatingChange(ratings.DEFAULT, ratings.Skill(31.25, 4.5))
    built = [
        messages.registration(you, season, registered=True, links=links),
        messages.registration(you, season, registered=False, links=links),
        messages.season_started(
            you,
            season,
            division=12,
            placed="moved down from division 11 as the divisions were refilled",
            refilled=True,
            players=names,
            games=games,
            links=links,
        ),
        messages.digest(you, season, division=12, rows=rows, waiting=games, links=links),
        messages.season_finished(
            you, season, division=2, rows=rows, moves=moves, rating=change, links=links
        ),
        messages.joined(you, season, links=links),
        messages.join_refused(you, season, reason="x " * 150, links=links),
    ]
    for message in built:
        assert_text_fits(message.text)
        read_html(message.html)
        assert "<table" not in message.html or "width:100%" in message.html
    assert "33.33" in built[3].text


def right_edges(line: str, words: list[str], start: int = 0) -> list[int]:
    """Where each of `words`, found in order from `start`, ends in `line`."""
    edges = []
    for word in words:
        start = line.index(word, start) + len(word)
        edges.append(start)
    return edges


@pytest.mark.parametrize("language", ["en", "cs", "de", "ru", "longer"])
def test_the_text_tables_heads_are_whole_and_the_figures_under_them_in_every_language(
    language, monkeypatch
):
    if language == "longer":  # heads longer than their columns, as a new language may have
        monkeypatch.setattr(messages, "gettext", lambda word: f"{word}-{word}".upper())
    rows = [
        {"you": True, "place": 1, "player": "ann", "points": "4,5", "score_sum": 187,
         "wins": 3, "played": 4, "left": "", "move": "up"},
        {"you": False, "place": None, "player": "bob", "points": "0", "score_sum": -12,
         "wins": 0, "played": 6, "left": "withdrew", "move": ""},
    ]  # fmt: skip
    with speaking("en" if language == "longer" else language):
        words = ("player", "points", "score", "won", "games")
        heads = [messages.gettext(word) for word in words]
        head, *lines = messages.table_text(rows)
    assert head.split()[1:] == heads  # none cut to its column's width
    columns = right_edges(head, heads[1:], head.index(heads[0]) + len(heads[0]))
    table = [line for line in lines if not line.lstrip().startswith("(")]  # notes apart
    for row, line in zip(rows, table, strict=True):
        figures = [str(row[key]) for key in ("points", "score_sum", "wins", "played")]
        assert right_edges(line, figures, line.index(row["player"]) + 3) == columns, line
        assert len(line) <= 78
