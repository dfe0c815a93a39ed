"""The league pages in Czech, German and Russian (issue 23): the list of leagues, a league,
a season open for registration, running (paused, a member removed, a game adjudicated) and
finished, the next season's placements, one division, for the organiser (with their tools)
and for a member, keep no English sentence of their English render, no English heading or
button either, and no mojibake; the form's answers are said in the reader's language; the
nouns the pages count take the three Czech and Russian forms.

What a reader sees of a page is its title and its main part — the text, and the `title`,
`aria-label` and `placeholder` attributes (the site's header and footer are the base
page's). What is the same in every language is left out (`translation_support`: names,
numbers, code), and so is what is not ours: the league's name, the reasons the organiser
typed, and the players' names."""

from __future__ import annotations

import html
import re

import pytest
from league.league_support import finish_all, ok
from page_support import Visible, english_kept
from server_support import csrf_of, signed_in
from translation_support import MOJIBAKE, english_left

from cafe.i18n import ngettext, speaking

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal", "ivy"]
#: Nine players in games of three and divisions of four: divisions of 5 and 4.
SETTINGS = {
    "name": "Tuesday Club",
    "slug": "tuesday",
    "game_size": 3,
    "division_size": 4,
    "promote": 1,
    "relegate": 1,
    "options": {"birthday": 30, "coffee_klatsch": True},
}
REASONS = {"pause": "winter holidays", "remove": "left the club", "adjudicate": "stuck for weeks"}
#: What people typed, and who they are: not the pages' words.
NOT_OURS = (SETTINGS["name"], *REASONS.values(), *NAMES, "kim", "zed")
LANGUAGES = ("cs", "de", "ru")
#: The words that are the same in a translation as in English.
SAME_WORDS = {"de": {"Division"}}


def left_english(english: str, translated: str, language: str) -> list[str]:
    """What the translated league page keeps of the English one."""
    return english_kept(english, translated, NOT_OURS, SAME_WORDS.get(language, ()))


class Viewers:
    """The organiser (ann), a member (bob) and a reader signed out, each reading the pages
    in a language chosen for the occasion."""

    def __init__(self, api, tokens: dict[str, str]) -> None:
        self.api, self.tokens = api, tokens
        self.clients = {"organiser": signed_in(api, "ann"), "member": signed_in(api, "bob")}
        self.names = {"organiser": "ann", "member": "bob"}

    def page(self, who: str, path: str, language: str) -> str:
        if who == "signed out":
            response = self.api.app.test_client().get(path, headers={"Accept-Language": language})
        else:
            token = self.tokens[self.names[who]]
            ok(self.api.call("PATCH", "/api/me/preferences", token, json={"language": language}))
            response = self.clients[who].get(path)
        assert response.status_code == 200, (who, path, response.status_code)
        assert f'<html lang="{language}">' in response.text
        return response.text


def renders(viewers: Viewers, pages: list[tuple[str, str]]) -> dict[tuple[str, str, str], str]:
    """Each page for each of its viewers in English and in each translation."""
    return {
        (who, path, language): viewers.page(who, path, language)
        for who, path in pages
        for language in ("en", *LANGUAGES)
    }


def season_lifetime(api) -> dict[tuple[str, str, str], str]:
    """ann's league through its first season and into the next, every page of each state
    rendered for its viewers in every language."""
    tokens = {name: api.register(name) for name in [*NAMES, "kim"]}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=SETTINGS), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    for name in [*NAMES, "kim"]:
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens[name]))
    ok(api.call("POST", "/api/leagues/tuesday/seasons/1/withdraw", tokens["kim"]))
    viewers = Viewers(api, tokens)
    season = "/leagues/tuesday/seasons/1"
    every = ["organiser", "member"]
    shown = renders(
        viewers,
        [(who, path) for who in [*every, "signed out"] for path in ("/leagues", "/leagues/tuesday")]
        + [(who, season) for who in [*every, "signed out"]],
    )

    started = ok(api.call("POST", f"/api{season}/start", tokens["ann"]))
    body = {"reason": REASONS["pause"]}
    ok(api.call("POST", f"/api{season}/pause", tokens["ann"], json=body))
    body = {"player": "ivy", "reason": REASONS["remove"]}
    ok(api.call("POST", f"/api{season}/remove", tokens["ann"], json=body))
    game = started["divisions"][1]["games"][0]
    body = {"reason": REASONS["adjudicate"]}
    ok(api.call("POST", f"/api/games/{game}/adjudicate", tokens["ann"], json=body))
    running = [(who, season) for who in every] + [
        ("member", f"{season}/divisions/1"),
        ("organiser", "/leagues/tuesday"),
        ("member", "/leagues"),
    ]
    shown |= {(f"running {who}", path, lang): html for (who, path, lang), html in renders(
        viewers, running
    ).items()}  # fmt: skip

    ok(api.call("POST", f"/api{season}/resume", tokens["ann"], json={}))
    finish_all(api, tokens, ok(api.call("GET", f"/api{season}")))
    assert ok(api.call("GET", f"/api{season}"))["status"] == "finished"
    finished = [(who, season) for who in every] + [(who, "/leagues/tuesday") for who in every]
    shown |= {(f"finished {who}", path, lang): html for (who, path, lang), html in renders(
        viewers, finished
    ).items()}  # fmt: skip

    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons/2/register", tokens["kim"]))
    ok(api.call("POST", "/api/leagues/tuesday/seasons/2/start", tokens["ann"]))
    second = [("member", "/leagues/tuesday/seasons/2"), ("organiser", "/leagues/tuesday")]
    shown |= {(f"next {who}", path, lang): html for (who, path, lang), html in renders(
        viewers, second
    ).items()}  # fmt: skip
    return shown


@pytest.mark.postgres
def test_no_english_is_left_on_a_translated_league_page(api):
    shown = season_lifetime(api)
    problems = []
    for (who, path, language), page in shown.items():
        if language == "en":
            continue
        english = shown[who, path, "en"]
        assert english != page, (who, path, language)
        if left := left_english(english, page, language):
            problems.append(f"{path} for the {who} in {language}: {left}")
        if found := MOJIBAKE.findall(page):
            problems.append(f"{path} for the {who} in {language}: mojibake {found}")
    assert not problems, "\n".join(problems)


def test_the_pages_count_in_each_languages_forms(api):
    """A season of nine (one has left) in divisions of five and four: cs "9 hráčů", "5
    hráčů", "4 hráči", "1 odešel"; ru "9 игроков", "4 игрока", "1 ушёл"."""
    shown = season_lifetime(api)
    for language, texts in {
        "cs": [
            "Přihlášky otevřené: zatím 9 hráčů; 1 odešel",
            "5 hráčů; každý hraje 2 hry",
            "3 hráči; 1 odešel; každý hraje 2 hry",
            "4 hráči; každý hraje 2 hry",
            "narozeninový stůl při 30 bodech, kávový dýchánek",
            "po 2 vypršeních času za sebou končíte",
        ],
        "de": [
            "Anmeldung offen: bisher 9 Spieler; 1 ist gegangen",
            "Geburtstagstisch bei 30 Punkten, Kaffeeklatsch",
        ],
        "ru": [
            "Открыта запись: пока 9 игроков; 1 ушёл",
            "5 игроков; каждый играет 2 игры",
            "3 игрока; 1 ушёл; каждый играет 2 игры",
            "4 игрока; каждый играет 2 игры",
            "стол именинника при 30 очках, кофейные посиделки",
        ],
    }.items():
        said = " ".join(
            " ".join(Visible.of(page)) for (_, _, lang), page in shown.items() if lang == language
        )
        for text in texts:
            assert text in said, (language, text)


#: The seeds' plural table (GLOSSARY.md): n, then each counted noun's form in Czech and
#: Russian, for the messages the league pages count with.
NUMBERS = (1, 2, 4, 5, 11, 17, 21, 22, 25)
COUNTED = {
    ("%(num)s player", "%(num)s players"): {
        "cs": "hráč hráči hráči hráčů hráčů hráčů hráčů hráčů hráčů",
        "ru": "игрок игрока игрока игроков игроков игроков игрок игрока игроков",
    },
    ("each plays %(num)s game", "each plays %(num)s games"): {
        "cs": "hru hry hry her her her her her her",
        "ru": "игру игры игры игр игр игр игру игры игр",
    },
    ("birthday table at %(num)s point", "birthday table at %(num)s points"): {
        "cs": "bodu bodech bodech bodech bodech bodech bodech bodech bodech",
        "ru": "очке очках очках очках очках очках очке очках очках",
    },
    (
        "%(num)s time-out in a row and you are out",
        "%(num)s time-outs in a row and you are out",
    ): {
        "cs": "vypršení vypršeních vypršeních vypršeních vypršeních vypršeních vypršeních "
        "vypršeních vypršeních",
        "ru": "просрочки просрочек просрочек просрочек просрочек просрочек просрочки просрочек "
        "просрочек",
    },
    (
        "Leaving now resigns your %(num)s running game of this season; your finished results "
        "stand.",
        "Leaving now resigns your %(num)s running games of this season; your finished results "
        "stand.",
    ): {
        "cs": "běžící běžící běžící běžících běžících běžících běžících běžících běžících",
        "ru": "ваша ваши ваши ваших ваших ваших ваша ваши ваших",
    },
}


@pytest.mark.parametrize("language", ["cs", "ru"])
@pytest.mark.parametrize("message", list(COUNTED), ids=lambda m: m[0][:30])
def test_every_counted_noun_takes_the_seeds_plural_forms(message, language):
    with speaking(language):
        said = [ngettext(*message, n) for n in NUMBERS]
    for n, form, text in zip(NUMBERS, COUNTED[message][language].split(), said, strict=True):
        assert re.search(rf"(^|\s){n}\s+{form}(\s|[.,;]|$)", text), (n, form, text)


def told(response) -> list[str]:
    """What a form's answer says on its page: the flashed notice, or the refusal."""
    found = re.findall(r'<p class="(?:notice|problem)" role="(?:status|alert)">(.*?)</p>', response)
    return [html.unescape(re.sub(r"<[^>]+>", "", text)) for text in found]


def organise(api, tokens: dict[str, str], slug: str, language: str) -> list[str]:
    """ann runs a league of four through its first season by the page's forms, reading
    `language`: what each answer says (a refusal too), in order."""
    ok(api.call("PATCH", "/api/me/preferences", tokens["ann"], json={"language": language}))
    league = {**SETTINGS, "slug": slug, "game_size": 2}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json=league), 201)
    ok(api.call("POST", f"/api/leagues/{slug}/seasons", tokens["ann"]), 201)
    for name in ("ann", "bob", "cid", "dan"):
        ok(api.call("POST", f"/api/leagues/{slug}/seasons/1/register", tokens[name]))
    client = signed_in(api, "ann")
    season = f"/leagues/{slug}/seasons/1"

    def press(action: str, status: int, path: str = season, **form: str) -> list[str]:
        page = client.get(season).text
        done = client.post(f"{path}/{action}", data={"csrf": csrf_of(page), **form})
        assert done.status_code == status, (action, done.status_code)
        return told(client.get(done.headers["Location"]).text if status == 303 else done.text)

    said = press("leave", 303) + press("join", 303)
    said += press("pause", 400, reason="")  # no reason
    said += press("start", 303) + press("pause", 303, reason=REASONS["pause"])
    said += press("resume", 303)
    said += press("remove", 303, player="dan", reason=REASONS["remove"])
    shown = ok(api.call("GET", f"/api/leagues/{slug}/seasons/1"))
    games = [game for division in shown["divisions"] for game in division["games"]]
    running = [
        game for game in games
        if ok(api.call("GET", f"/api/games/{game}", tokens["ann"]))["status"] == "active"
    ]  # fmt: skip
    said += press("adjudicate", 303, game=str(running[0]), reason=REASONS["adjudicate"])
    said += press("adjudicate", 404, game="99999", reason=REASONS["adjudicate"])
    finish_all(api, tokens, shown)
    said += press("seasons", 303, path=f"/leagues/{slug}")
    return said


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_forms_answers_are_said_in_the_readers_language(api, language):
    """Each form's answer (flashed on the page it leads to) and a refusal said on the
    form's page, in English and in `language`: none keeps the English."""
    tokens = {name: api.register(name) for name in ("ann", "bob", "cid", "dan")}
    english = organise(api, tokens, "club-en", "en")
    translated = organise(api, tokens, f"club-{language}", language)
    assert len(english) == 10, english
    assert "You have left season 1 of Tuesday Club." in english
    assert "season 1 of club-en has no running game '99999'" in english
    for ours, theirs in zip(english, translated, strict=True):
        not_ours = (*NOT_OURS, "club-en", f"club-{language}")
        left = english_left(ours, theirs, not_ours=not_ours)
        assert ours != theirs and not left, (theirs, left)
        assert not MOJIBAKE.search(theirs), theirs
