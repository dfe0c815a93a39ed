"""Every email is written in its recipient's language and time zone when it is sent
(`server.mail.events.render`, the digest in `server.jobs.digest`): four players of one game
in four languages each read their own, the same event rows (language-neutral) rendered for
each; a Czech or Russian subject crosses SMTP RFC 2047-encoded and arrives as it was
written; a player who changes language before the worker sends reads the new one."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy

from sqlalchemy import update
from sqlmodel import Session, col, select

from cafe import i18n
from cafe.render import quantities
from server.config import settings_of
from server.db import get_engine
from server.jobs import digest
from server.mail import events, templates, times
from server.mail.batch import Batch
from server.models import OutboxMessage, Player, utcnow

#: The players of the game, each with their language and zone.
READERS = {
    "ann": ("cs", "Europe/Prague"),
    "bob": ("de", "Europe/Berlin"),
    "cid": ("ru", "Europe/Moscow"),
    "dan": ("en", "America/New_York"),
}


def choose(api, token: str, language: str, zone: str) -> None:
    body = {"language": language, "timezone": zone}
    assert api.call("PATCH", "/api/me/preferences", token, json=body).status_code == 200


def written(language: str, zone: str, moment: datetime) -> str:
    """`moment` as a reader of `language` in `zone` reads it."""
    with i18n.speaking(language):
        return times.local(moment, zone)


def in_language(language: str, points: int) -> str:
    with i18n.speaking(language):
        return quantities.points(points)


def test_four_players_of_one_game_each_read_their_own_language(api):
    tokens = {name: api.register(name) for name in READERS}
    for name, (language, zone) in READERS.items():
        choose(api, tokens[name], language, zone)
    game = api.call("POST", "/api/games", tokens["ann"], json={"seats": 4}).json
    for name in ("bob", "cid", "dan"):
        assert api.call("POST", f"/api/games/{game['id']}/join", tokens[name]).status_code == 200
    assert api.call("POST", f"/api/games/{game['id']}/start", tokens["ann"]).status_code == 200
    state = api.call("GET", f"/api/games/{game['id']}", tokens["ann"]).json
    mover = state["to_move"]
    hint = api.call("GET", f"/api/games/{game['id']}/hints?n=1", tokens[mover]).json["hints"][0]
    away = {
        name: api.call("POST", "/api/me/vacation", tokens[name], json={"days": 3}).json
        for name in READERS
    }
    for name, (language, zone) in READERS.items():
        mails = {m.kind: m for m in api.outbox(f"{name}@example.com")}
        until = written(language, zone, datetime.fromisoformat(away[name]["current"]["end"]))
        vacation = mails["vacation_started"]
        assert until in vacation.subject and until in vacation.body and until in vacation.html
        for elsewhere, there in READERS.values():
            if elsewhere != language:
                assert written(
                    elsewhere, there, datetime.fromisoformat(away[name]["current"]["end"])
                ) not in (vacation.subject + vacation.body + vacation.html)
        if name == mover:
            turn = mails["your_turn"]
            deadline = datetime.fromisoformat(state["deadline"])
            assert f"({in_language(language, hint['points'])})" in turn.body
            assert in_language(language, hint["points"]) in turn.html
            assert written(language, zone, deadline) in turn.body
    # the rows were queued saying nothing of any language
    with Session(get_engine(api.app)) as session:
        for row in session.exec(select(OutboxMessage)):
            assert row.payload is None or "language" not in str(row.payload)


def test_the_language_is_the_readers_when_the_email_is_sent(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    other = "bob" if mover == "ann" else "ann"
    # queued for an English reader, who chooses Russian before the worker sends it
    with Session(get_engine(api.app)) as session:
        session.execute(update(Player).where(col(Player.name) == mover).values(language="ru"))
        session.commit()
    deadline = datetime.fromisoformat(state["deadline"])
    [turn] = [m for m in api.outbox(f"{mover}@example.com") if m.kind == "your_turn"]
    assert written("ru", "UTC", deadline) in turn.body
    [played] = [m for m in api.outbox(f"{other}@example.com") if m.kind == "game_started"]
    assert "The order of play" in played.body  # the other one still reads English


def test_czech_and_russian_subjects_cross_smtp_encoded_and_arrive_as_written(api, tmp_path):
    readers = {"ann": ("ru", "Europe/Moscow"), "bob": ("cs", "Europe/Prague")}
    api.sink.folder = tmp_path  # the catcher keeps each message as it came over the wire
    for name, (language, zone) in readers.items():
        token = api.register(name)
        choose(api, token, language, zone)
        away = api.call("POST", "/api/me/vacation", token, json={"days": 3})
        assert away.status_code == 201
        [row] = [m for m in api.outbox(f"{name}@example.com") if m.kind == "vacation_started"]
        until = written(language, zone, datetime.fromisoformat(away.json["current"]["end"]))
        assert until in row.subject and any(ord(c) > 127 for c in until), row.subject
        [raw] = [
            path.read_bytes()
            for path in sorted(tmp_path.glob("*.eml"))
            if row.message_id.encode() in path.read_bytes()
        ]
        header = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")  # every header line is ASCII
        assert "Subject: =?utf-8?" in header, header
        received = message_from_bytes(raw, policy=policy.default)
        assert received["Subject"] == row.subject
        text = received.get_body(("plain",)).get_content().replace("\r\n", "\n")
        assert text.rstrip("\n") == row.body.rstrip("\n") and until in text


def test_the_digest_is_written_in_its_readers_language(api):
    game_id, tokens = api.started_game("ann", "bob")
    state = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    mover = state["to_move"]
    choose(api, tokens[mover], "de", "Europe/Berlin")
    body = {"turn_emails": "digest"}
    assert api.call("PATCH", "/api/me/preferences", tokens[mover], json=body).status_code == 200
    engine, config = get_engine(api.app), settings_of(api.app)
    later = utcnow().replace(year=utcnow().year + 1)
    assert digest.queue_due(engine, config, now=later) == 1
    [sent] = [m for m in api.outbox(f"{mover}@example.com") if m.kind == "digest"]
    deadline = datetime.fromisoformat(state["deadline"])
    assert written("de", "Europe/Berlin", deadline) in sent.body
    assert "Punkt" in sent.body  # the best turn's points, counted in German


def test_the_mail_templates_write_dates_in_the_language_in_use():
    moment = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
    template = templates._ENVIRONMENT.from_string("{{ at|moment('Europe/Prague') }} · {{ at|day }}")
    said = {}
    for language in i18n.LANGUAGES:
        with i18n.speaking(language):
            said[language] = template.render(at=moment)
    assert said == {
        "en": "Thu, 5 Mar 2026, 10:00 CET · 5 Mar 2026",
        "cs": "čt 5. 3. 2026 10:00 SEČ · 5. 3. 2026",
        "de": "Do., 5. März 2026, 10:00 MEZ · 05.03.2026",
        "ru": "чт, 5 мар. 2026\u202fг., 10:00 CET · 5 мар. 2026\u202fг.",
    }


def test_each_kind_of_row_finds_its_reader(api):
    """The reader of each kind of row: the seat's player, the creator of an open game, the
    addressee of a notice or a sign-in email, the player an answer to a refused turn is for;
    an address nobody plays with has none (and reads English)."""
    tokens = {name: api.register(name) for name in ("ann", "bob", "cid")}
    game = api.call(
        "POST", "/api/games", tokens["ann"], json={"seats": 3, "invite": ["bob", "cid"]}
    )
    game_id = game.json["id"]
    assert api.call("POST", f"/api/games/{game_id}/join", tokens["bob"]).status_code == 200
    api.client.post("/api/signin-codes", json={"email": "cid@example.com"})
    api.client.post("/api/signin-codes", json={"email": "nobody@example.com"})
    engine = get_engine(api.app)
    with Session(engine) as session:
        rows = list(session.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))))
        names = {player.id: player.name for player in session.exec(select(Player))}
        batch = Batch(session, settings_of(api.app), rows)
        found = {}
        for row in rows:
            reader = events.reader(batch, row)
            found.setdefault(row.kind, set()).add(
                (row.to_addr, None if reader is None else names[reader.id])
            )
    assert ("cid@example.com", "cid") in found["invite"]
    assert (None, "ann") in found["player_joined"]  # the creator hears who joined
    assert ("cid@example.com", "cid") in found["signin_code"]
    assert ("nobody@example.com", None) in found["signin_code"]


def test_a_text_part_keeps_the_no_break_spaces_of_a_date():
    with i18n.speaking("ru"):
        date = times.local(datetime(2026, 3, 5, 9, 0, tzinfo=UTC), "Europe/Moscow")
    assert "\u202f" in date  # CLDR's Russian writes "2026 г." with a narrow no-break space
    words = "слово " * 12
    wrapped = templates.wrap(f"{words}до {date}, {words}")
    assert date in wrapped.replace("\n", " ")
    assert all(not line.endswith("2026") for line in wrapped.splitlines())
    assert templates.wrap(f"до {date}.") == f"до {date}."
