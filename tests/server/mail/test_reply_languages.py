"""Replies in every language (issue 23): the turn notation is the same everywhere, and the
words around it (`bar`, `swap`, `birthday=`, `join`, "yes", `game`) and the lines mail
programs write above a quoted email are read in Czech (with and without diacritics),
German and Russian as well as in English (`server.mail.words`, `server.mail.reading`)."""

from __future__ import annotations

import pytest
from mail_support import game_row, outbox_rows, reply_message
from sqlmodel import Session

from cafe.board import PRIVATE_CHAIRS
from cafe.i18n import gettext, speaking
from server.db import get_engine
from server.mail import replies, words
from server.mail.reading import Choice, choose, own_lines
from server.models import GameRecord

#: The lines that start the quoted email, as the mail programs write them in our languages.
ATTRIBUTIONS = [
    "On Wed, Dec 2, 2026 at 10:00 AM Café <play@cafe.example> wrote:",
    "Dne 2. 12. 2026 v 10:00 Café International <play@cafe.example> napsal(a):",
    "Dne 2. 12. 2026 v 10:00 Jana Novakova napsala:",
    "Dne 2.12.2026 v 10:00 Cafe napsal(a):",
    "čt 2. 12. 2026 v 10:00 odesílatel Café <play@cafe.example> napsal:",
    "Am 02.12.2026 um 10:00 schrieb Café International <play@cafe.example>:",
    "Am Mi., 2. Dez. 2026 um 10:00 Uhr schrieb Café <play@cafe.example>:",
    "Café <play@cafe.example> schrieb am 02.12.2026 um 10:00:",
    "2 дек. 2026 г., в 10:00, Café <play@cafe.example> написал(а):",
    "02.12.2026 10:00, Café International пишет:",
    "ср, 2 дек. 2026 г. в 10:00, Café <play@cafe.example>:",
    "Od: Café International <play@cafe.example>",
    "Odesílatel: Café International <play@cafe.example>",
    "Von: Café International <play@cafe.example>",
    "От: Café International <play@cafe.example>",
    "-----Původní zpráva-----",
    "---------- Původní e-mail ----------",
    "-------- Исходное сообщение --------",
    "-------- Weitergeleitete Nachricht --------",
    "Sent from my iPhone",
    "Odesláno z iPhonu",
    "Von meinem iPhone gesendet",
    "Отправлено с iPhone",
]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
def test_each_languages_attribution_line_starts_the_quoted_history(attribution):
    """Everything from the attribution on is the quoted email, even lines without `>`
    (Outlook quotes without them): its hints and turns are never read as the reply's."""
    text = f"bar USm\n\n{attribution}\nVáš tah ve hře 12\n1. DEf@DE1 (+2)\n> ESm@ES1\n"
    assert own_lines(text) == ["bar USm"]


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("bar DEf", "bar DEf"),
        ("Bar DEf", "bar DEf"),
        ("бар DEf", "bar DEf"),
        ("БАР def", "bar def"),
        ("swap DEf@DE1", "swap DEf@DE1"),
        ("výměna DEf@DE1", "swap DEf@DE1"),
        ("vymena DEf@DE1", "swap DEf@DE1"),
        ("Vyměnit DEf@DE1-FR1", "swap DEf@DE1-FR1"),
        ("vymenit DEf@DE1-FR1", "swap DEf@DE1-FR1"),
        ("Tausch DEm@DE1", "swap DEm@DE1"),
        ("auswechseln DEm@DE1", "swap DEm@DE1"),
        ("обменять DEm@DE1", "swap DEm@DE1"),
        ("обмен DEm@DE1", "swap DEm@DE1"),
        ("замена DEm@DE1", "swap DEm@DE1"),
        ("DEf@DE1 narozeniny=DE", "DEf@DE1 birthday=DE"),
        ("DEf@DE1 Geburtstag=DE", "DEf@DE1 birthday=DE"),
        ("DEf@DE1 именины=DE", "DEf@DE1 birthday=DE"),
        ("cafe move 12 vymena DEf@DE1", "swap DEf@DE1"),
    ],
)
def test_the_turn_words_of_each_language_read_as_the_notations(line, read):
    assert choose((line,)) == Choice(text=read)


def test_the_notation_itself_is_not_translated():
    """Tiles, chairs and nation codes stay as they are; only the words around them change,
    and a word that is none of them is left for the engine to refuse."""
    assert words.as_notation("DEf@DE1 USm@US1-DE1") == "DEf@DE1 USm@US1-DE1"
    assert words.as_notation("barman DEf") == "barman DEf"
    assert choose(("Dobrý den, hraju zítra",)) is None


YES = ["join", "Join!", "yes", "Yes.", "ano", "Ano!", "připojit", "pripojit se", "hraju"]
YES += ["ja", "Ja, gerne", "beitreten", "mitspielen", "да", "Да!", "присоединиться", "играю"]
NO = ["no", "ne", "Ne, díky", "nein", "Nein danke", "нет", "Нет, спасибо", "Sounds fun"]


@pytest.mark.parametrize("line", YES)
def test_each_languages_join_and_yes_words_take_the_seat(line):
    assert words.means_join(line)


@pytest.mark.parametrize("line", NO)
def test_no_and_other_words_take_no_seat(line):
    assert not words.means_join(line)
    assert not words.is_join_line(line)


@pytest.mark.parametrize(
    "line", ["join", "cafe league join spring", "Ano!", "pripojit", "Ja.", "да", "вступить"]
)
def test_a_season_registration_reads_each_languages_join(line):
    assert words.is_join_line(line)


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("14: ESm@ES1", (14, "ESm@ES1")),
        ("game 14: ESm@ES1", (14, "ESm@ES1")),
        ("Hra #14: ESm@ES1", (14, "ESm@ES1")),
        ("Spiel 14: ESm@ES1", (14, "ESm@ES1")),
        ("игра 14: ESm@ES1", (14, "ESm@ES1")),
        ("партия 14: ESm@ES1", (14, "ESm@ES1")),
        ("Ahoj 14: ESm@ES1", None),
    ],
)
def test_a_season_line_names_its_game_in_each_language(line, read):
    assert words.game_turn(line) == read


def deliver(api, to, text, number=1):
    """Hand a reply to `cafe-server mail-in`'s handler, as the receiver does."""
    message = reply_message(to, text, message_id=f"<reply-{number}@mail.example>")
    return replies.handle(api.app, bytes(message), envelope_to=(to,)).kind


def mails(api, kind, name):
    api.send_events()
    return [r for r in outbox_rows(api.app, kind) if r.to_addr == f"{name}@example.com"]


def seat_a_joker(api, game_id):
    """Put a joker on a private chair of the table of a lady (or gentleman) in the hand of
    the player to move, taken from the bag (the tiles stay 100): the chair and the tile
    that may swap it."""
    with Session(get_engine(api.app)) as session:
        game = session.get(GameRecord, game_id)
        state = dict(game.state)
        hand = state["hands"][state["to_move"]]
        tile = next(t for t in hand if t[0] != "J")
        joker = "J" + tile[-1]
        bag = list(state["bag"])
        bag.remove(joker)
        chair = PRIVATE_CHAIRS[f"{tile[:2]}1"][0]
        state["bag"], state["chairs"] = bag, {**state["chairs"], str(chair): joker}
        game.state = state
        session.add(game)
        session.commit()
    return tile, f"{tile[:2]}1"


def test_a_czech_reply_without_diacritics_swaps_the_joker(api):
    """`vymena` for `výměna`, under a Czech attribution line with the quoted email below it."""
    game_id, _ = api.started_game("ann", "bob")
    state = game_row(api.app, game_id).state
    first, version = state["players"][state["to_move"]], game_row(api.app, game_id).version
    tile, table = seat_a_joker(api, game_id)
    [your_turn] = mails(api, "your_turn", first)
    text = (
        f"vymena {tile}@{table}\n\nDne 2. 12. 2026 v 10:00 Cafe International "
        "<play@cafe.example> napsal(a):\n> Vas tah\n"
    )
    assert deliver(api, your_turn.headers["Reply-To"], text) == "applied"
    game = game_row(api.app, game_id)
    assert game.version == version + 1
    mover = game.state["players"].index(first)
    assert tile in game.state["chairs"].values() and "J" + tile[-1] in game.state["hands"][mover]


@pytest.mark.parametrize("answer", ["Ano, beru", "pripojit", "Ja", "да"])
def test_an_invitation_answered_yes_in_each_language_takes_the_seat(api, answer):
    tokens = {name: api.register(name) for name in ("ann", "bob")}
    game_id = api.call("POST", "/api/games", tokens["ann"], json={"seats": 3, "invite": ["bob"]})
    game_id = game_id.json["id"]
    [invite] = mails(api, "invite", "bob")
    assert deliver(api, invite.headers["Reply-To"], f"{answer}\n\n> the invitation\n") == "joined"
    shown = api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json
    assert shown["players"] == ["ann", "bob"]


@pytest.mark.parametrize("answer", ["Ne", "Nein", "Нет"])
def test_an_invitation_answered_no_takes_no_seat(api, answer):
    tokens = {name: api.register(name) for name in ("ann", "bob")}
    game_id = api.call("POST", "/api/games", tokens["ann"], json={"seats": 3, "invite": ["bob"]})
    game_id = game_id.json["id"]
    [invite] = mails(api, "invite", "bob")
    assert deliver(api, invite.headers["Reply-To"], f"{answer}\n") == "refused"
    assert game_row(api.app, game_id).status == "open"
    assert api.call("GET", f"/api/games/{game_id}", tokens["ann"]).json["players"] == ["ann"]


# --- the answer to a reply, in its reader's language ---------------------------------------


def queued(api, kind, name):
    """The rows of `kind` for `name`, as queued (not rendered yet)."""
    return [r for r in outbox_rows(api.app, kind) if r.to_addr == f"{name}@example.com"]


def test_a_refused_turn_is_answered_with_the_engines_reason_in_the_readers_language(api):
    """The reply is read with no language in use; the reason is kept as the engine's message
    and its values, and said in German when the answer is rendered for its German reader."""
    game_id, tokens = api.started_game("ann", "bob")
    state = game_row(api.app, game_id).state
    first, hand = state["players"][state["to_move"]], state["hands"][state["to_move"]]
    absent = next(t for t in ("USf", "USm", "DEf", "DEm", "Jf") if t not in hand)
    [your_turn] = mails(api, "your_turn", first)
    chosen = api.call("PATCH", "/api/me/preferences", tokens[first], json={"language": "de"})
    assert chosen.status_code == 200, chosen.json
    assert deliver(api, your_turn.headers["Reply-To"], f"bar {absent}\n") == "refused"
    [row] = queued(api, "turn_refused", first)
    stored = row.payload["facts"]["reason"]
    assert stored["message"] == "%(tile)s is not in %(player)s's hand: %(hand)s"
    assert stored["values"]["tile"] == absent and "ist nicht" not in str(row.payload)
    [answer] = mails(api, "turn_refused", first)
    assert f"{absent} ist nicht auf der Hand von {first}" in " ".join(answer.body.split())


def test_a_refused_join_is_answered_in_the_readers_language(api):
    """A `join` reply the service refuses (bob took the seat already, with `cafe join`) is
    answered with the service's reason in bob's language, Russian."""
    tokens = {name: api.register(name) for name in ("ann", "bob")}
    created = api.call("POST", "/api/games", tokens["ann"], json={"seats": 3, "invite": ["bob"]})
    game_id = created.json["id"]
    [invite] = mails(api, "invite", "bob")
    assert api.call("POST", f"/api/games/{game_id}/join", tokens["bob"]).status_code == 200
    api.call("PATCH", "/api/me/preferences", tokens["bob"], json={"language": "ru"})
    assert deliver(api, invite.headers["Reply-To"], "join\n") == "refused"
    [answer] = mails(api, "join_answer", "bob")
    with speaking("ru"):
        reason = gettext("you are already in game %(game)s", game=game_id)
    assert reason in " ".join(answer.body.split())
