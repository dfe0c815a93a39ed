"""Every kind of email in Czech, German and Russian (issue 23): each sample email
(`.ci/render_every_email.py`) rendered in each language keeps no English sentence of its
English render, has its subject translated, no mojibake, and every text line within 78
columns; the nouns the emails count take the three Czech and Russian forms.

What stays the same in every language is left out of the comparison: names, tile codes,
the turn notation, commands, links and numbers — and the words that are not the emails'
own: what an organiser typed, the league's name, and the board's text picture, which its
own test compares. The engine's words in an email — why a game ended, how a player left, a
rule's refusal — are compared like the emails' own."""

from __future__ import annotations

import re

import pytest
from mail_support import read_html, sample_emails, too_wide
from translation_support import MOJIBAKE, english_left, without

from cafe import IllegalTurnError
from cafe.i18n import Country, lazy_gettext, ngettext, speaking
from cafe.render import text as picture
from server.mail import messages, notices
from server.mail.templates import Rendered
from server.postbox.facts import say
from server.postbox.kinds import EmailKind

SAMPLES = sample_emails()
KINDS = sorted(SAMPLES.builders())
LANGUAGES = ("cs", "de", "ru")

#: Text of a sample email that is no message of the emails: the organiser's reasons and the
#: league's name (typed by people), the players' table talk (each of its lines, as they
#: wrote it) and the text of a refused message.
NOT_OURS = (
    SAMPLES.SEASON.league,
    "two months without a turn; the division waited for you long enough",
    "the club's summer break, until the 1st of September",
    *(line for said in SAMPLES.TALK for line in said.text.split("\n") if line),
    "a message that was too long " * 8,
)
#: A moment as the emails wrote it before they spoke the reader's language (`times.local`).
MOMENT = re.compile(
    r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? \d+ [A-Z][a-z]{2} \d{4}, \d\d:\d\d( [A-Z+\-0-9]+)?"
)


def render(kind: str, language: str, ones: bool = False) -> Rendered:
    with speaking(language):
        return SAMPLES.builders(ones)[kind]()


def engine_words() -> list[str]:
    """The text board pictures of the samples (`cafe.render.text`), said in English: their
    own test compares them (why a game ended and how a player left are compared here)."""
    finished = SAMPLES.facts(*SAMPLES.play(None))
    game, log = SAMPLES.play(10)
    running = SAMPLES.facts(game, log)
    removed = SAMPLES.removed(game, running)
    return [
        picture(facts.engine, layout=messages.PICTURE).rstrip("\n")
        for facts in (finished, running, removed)
    ]


ENGINE = engine_words()


def visible(message: Rendered) -> dict[str, str]:
    """What a reader sees of a message: its subject, its text part, the HTML part's text."""
    return {
        "subject": message.subject,
        "text": message.text,
        "html": " ".join(read_html(message.html).text),
    }


def flat(text: str) -> str:
    """`text` without what is no message of the emails: the engine's words, what people
    typed, and moments as the emails wrote them before they spoke the reader's language."""
    return " ".join(MOMENT.sub(" ", without(text, (*ENGINE, *NOT_OURS))).split())


@pytest.mark.parametrize("ones", [False, True], ids=["many", "ones"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_no_english_sentence_is_left_in_a_translated_email(kind, language, ones):
    english, translated = visible(render(kind, "en", ones)), visible(render(kind, language, ones))
    for part, text in english.items():
        left = english_left(flat(text), flat(translated[part]))
        assert not left, f"{kind} ({language}, {part}): {left}\n{translated[part]}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_the_subject_is_translated(kind, language):
    english, translated = render(kind, "en").subject, render(kind, language).subject
    assert translated != english and translated.strip()


@pytest.mark.parametrize("ones", [False, True], ids=["many", "ones"])
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_every_text_line_fits_78_columns_in_every_language(kind, language, ones):
    text = render(kind, language, ones).text
    assert not too_wide(text), "\n" + text


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", KINDS)
def test_no_mojibake_and_the_html_says_its_language(kind, language):
    message = render(kind, language)
    for part in (message.subject, message.text, message.html):
        assert not MOJIBAKE.search(part), MOJIBAKE.findall(part)
    assert f'<html lang="{language}">' in message.html


def test_a_stored_reason_is_said_in_the_readers_language_and_old_words_as_they_are():
    reason = lazy_gettext("game %(game)s is not a game of season %(season)s", game=12, season=3)
    with speaking("de"):
        assert say([reason]) == "Spiel 12 ist kein Spiel der Saison 3"
        assert (
            say("words stored before reasons were kept") == "words stored before reasons were kept"
        )
    assert say(reason) == "game 12 is not a game of season 3"


#: The seeds' plural table (GLOSSARY.md): n, then the noun's form in each language.
NUMBERS = (1, 2, 4, 5, 11, 17, 21, 22, 25)
#: Each counted noun the emails introduce: its message and its forms for `NUMBERS`.
COUNTED = {
    ("%(num)s point", "%(num)s points"): {
        "cs": "bod body body bodů bodů bodů bodů bodů bodů",
        "ru": "очко очка очка очков очков очков очко очка очков",
    },
    ("%(num)s seat", "%(num)s seats"): {
        "cs": "místo místa místa míst míst míst míst míst míst",
        "ru": "место места места мест мест мест место места мест",
    },
    ("for %(num)s player", "for %(num)s players"): {
        "cs": "hráče hráče hráče hráčů hráčů hráčů hráčů hráčů hráčů",
        "ru": "игрока игрока игрока игроков игроков игроков игрока игрока игроков",
    },
    ("%(num)s day ago", "%(num)s days ago"): {
        "cs": "dnem dny dny dny dny dny dny dny dny",
        "ru": "день дня дня дней дней дней день дня дней",
    },
    ("%(num)s day a turn", "%(num)s days a turn"): {
        "cs": "den dny dny dní dní dní dní dní dní",
        "ru": "день дня дня дней дней дней день дня дней",
    },
    ("%(num)s league game waits for you", "%(num)s league games wait for you"): {
        "cs": "hra hry hry her her her her her her",
        "ru": "игра игры игры игр игр игр игра игры игр",
    },
    (
        "That is %(num)s time-out in a row in this game.",
        "That is %(num)s time-outs in a row in this game.",
    ): {
        "cs": "vypršení vypršení vypršení vypršení vypršení vypršení vypršení vypršení vypršení",
        "ru": "просрочка просрочки просрочки просрочек просрочек просрочек просрочка просрочки "
        "просрочек",
    },
}


@pytest.mark.parametrize("language", ["cs", "ru"])
@pytest.mark.parametrize("message", list(COUNTED), ids=lambda m: m[0])
def test_every_counted_noun_takes_the_seeds_plural_forms(message, language):
    with speaking(language):
        said = [ngettext(*message, n) for n in NUMBERS]
    for n, form, text in zip(NUMBERS, COUNTED[message][language].split(), said, strict=True):
        # the number, perhaps an adjective ("1 ligová hra"), then the noun's form
        assert re.search(rf"(^|\s){n}\s+(\w+\s+)?{form}(\s|[.,]|$)", text), (n, form, text)


SEASON_FACTS = {
    "recipient": {"player_id": 1, "name": "ann", "email": "ann@example.org"},
    "season": {
        "league": "Tuesday Club",
        "slug": "tuesday",
        "number": 2,
        "game_size": 4,
        "clock": SAMPLES.CLOCK,
    },
    "links": {"base_url": "https://cafe.example.org"},
}


def test_stored_reasons_are_codes_and_messages_and_old_rows_still_read():
    """What a notice stores is language-neutral — a placement's code, a refusal's message
    and values — and is said in the reader's language when sent; a row stored before (the
    words themselves, English) is still rendered, as it was."""
    refused = notices.encode(
        EmailKind.LEAGUE_TURNS_REFUSED,
        notices.decode(EmailKind.LEAGUE_TURNS_REFUSED, {**SEASON_FACTS, "example": "1: J@US1"})
        | {"reason": [lazy_gettext("you do not play in game %(game)s", game=7)]},
    )
    assert refused["reason"] == [
        {
            "message": "you do not play in game %(game)s",
            "values": {"game": 7},
            "plural": None,
            "num": 1,
        }
    ]
    for stored, german in (
        (refused["reason"], "Sie spielen nicht in Spiel 7"),
        ("you do not play in game 7", "you do not play in game 7"),  # an old row's words
    ):
        facts = notices.decode(EmailKind.LEAGUE_TURNS_REFUSED, {**refused, "reason": stored})
        with speaking("de"):
            assert german in notices.BUILDERS[EmailKind.LEAGUE_TURNS_REFUSED](**facts).text
    started = {**SEASON_FACTS, "division": 1, "players": ["ann", "bob"], "games": []}
    for placed, placed_from, czech in (
        ("down", 1, "sestup z divize 1"),
        ("moved down from division 1", None, "moved down from division 1"),  # an old row
    ):
        stored = {**started, "division": 2, "placed": placed, "placed_from": placed_from}
        facts = notices.decode(EmailKind.LEAGUE_SEASON_STARTED, stored)
        with speaking("cs"):
            text = notices.BUILDERS[EmailKind.LEAGUE_SEASON_STARTED](**facts).text
        assert czech in " ".join(text.split())


def test_a_reason_keeps_its_values_messages_nations_and_errors_as_parts():
    """What a refusal's message holds — a message, a nation, an engine error — is stored as
    parts too, and said in the reader's language when the answer is rendered."""
    inner = IllegalTurnError(lazy_gettext("the bar is full"), rule="bar-full")
    reason = lazy_gettext(
        "%(table)s (%(country)s): %(problem)s", table="US1", country=Country("US"), problem=inner
    )
    stored = notices.encode(EmailKind.JOIN_ANSWER, {"refusal": reason})["refusal"]
    assert stored["values"]["country"] == {"nation": "US"}
    assert stored["values"]["problem"]["message"] == "the bar is full"
    read = notices.decode(EmailKind.JOIN_ANSWER, {"refusal": stored})["refusal"]
    with speaking("cs"):
        assert str(read) == str(reason)
        assert "Spojené státy" in str(read)
