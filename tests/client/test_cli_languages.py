"""`cafe` in Czech, German and Russian (issue 23): the run's language from `--lang`, else
`CAFE_LANG`, else the profile's, else the terminal's (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`,
`LANG`), else English; help, tables and errors in it, with no English sentence of ours left
and no mojibake; `Accept-Language` on every request, and the profile keeping a language only
once the player chose it (a player who never did reads the terminal's).

The help is translated where the commands are defined, so what shows it runs `cafe` as the
console script does, in a fresh interpreter (`client.cli.main`) that reaches the live
service over HTTP; the rest runs in-process like the other client tests.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from client_support import CLEAN_ENV, Cafe, LiveServer, Player, to_move
from flask import Flask, request
from translation_support import MOJIBAKE, english_left, sentences
from typer.testing import Result

from cafe import Game
from cafe.bots import GreedyBot, play_out
from client.cli import run_language
from client.config import DEFAULT_PROFILE, Profile, Store
from client.errors import ExitCode
from client.language import chosen, given

#: Click's and Typer's own words, which stay English (docs/languages.md), as a line of the
#: help holds them (wrapped to the terminal's width).
THEIRS = re.compile(r"Show this message and exit|completion for the current shell|customize the")
#: Words of ours in English that a translated run must not print outside commands.
ENGLISH = re.compile(r"\b(the|your|you|with|and|game|games|turn|turns|left|points|waiting)\b")
#: What may stay as it is in any language: `cafe …` commands, options, settings, codes,
#: and the name of a command where the help lists them.
UNTRANSLATED = re.compile(
    r"`[^`]*`|cafe [^·;]*|--?[\w-]+|\b[A-Z_]{2,}\b|\S+@\S+|https?://\S+|^\s*[a-z]+(?=\s{2,})"
)
#: A letter of each language's own alphabet, to tell that a run spoke it.
OWN_LETTERS = {"cs": "ěščřžýáíéůú", "de": "äöüßÄÖÜ", "ru": "абвгдежзийклмнопрстуфхцчшщыэюя"}


def cafe_process(*args: str, env: Mapping[str, str | None]) -> subprocess.CompletedProcess[str]:
    """`cafe ARGS…` as the console script runs it, in a fresh interpreter under `env` (on
    top of the tests' clean environment)."""
    environment = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    merged = {**CLEAN_ENV, **env}
    environment.update({k: v for k, v in merged.items() if v is not None})
    probe = "import sys; from client.cli import main; sys.argv[0] = 'cafe'; main()"
    return subprocess.run(
        [sys.executable, "-c", probe, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environment,
        check=False,
    )


def ours_left(english: str, translated: str) -> list[str]:
    """The lines of the English run that the translated one prints unchanged, and its lines
    that still carry English words of ours, once commands, options and Click's words are
    set aside."""
    same = [
        line.strip()
        for line in english.splitlines()
        if line.strip() in {other.strip() for other in translated.splitlines()}
        and not THEIRS.search(line)
        and len(re.findall(r"\b[a-z]{3,}\b", UNTRANSLATED.sub("", line))) >= 2
    ]
    worded = [
        line
        for line in translated.splitlines()
        if not THEIRS.search(line) and ENGLISH.search(UNTRANSLATED.sub("", line))
    ]
    return same + worded


def assert_speaks(language: str, english: str, translated: str) -> None:
    """`translated` is in `language`: its letters, no English sentence of ours, no mojibake."""
    assert any(letter in translated for letter in OWN_LETTERS[language]), translated
    assert ours_left(english, translated) == [], translated
    assert not MOJIBAKE.search(translated)


# --- which language ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "stored", "environ", "expected"),
    [
        ("cs", "ru", {"LANG": "de_DE.UTF-8"}, "cs"),  # --lang (or CAFE_LANG) first
        (None, "ru", {"LANG": "de_DE.UTF-8"}, "ru"),  # then the profile's
        (None, None, {"LANG": "de_DE.UTF-8"}, "de"),  # then the terminal's
        (None, None, {"LANGUAGE": "fr:ru:de", "LANG": "cs_CZ.UTF-8"}, "ru"),  # a colon list
        (None, None, {"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, "en"),  # the first one set counts
        (None, None, {"LC_MESSAGES": "ru_RU.UTF-8", "LANG": "de_DE"}, "ru"),
        (None, None, {}, "en"),  # else English
        ("fr", None, {"LANG": "de_DE.UTF-8"}, "de"),  # what is not ours is passed over
    ],
)
def test_the_order_of_precedence(
    said: str | None, stored: str | None, environ: dict[str, str], expected: str
) -> None:
    assert chosen(said, lambda: stored, environ) == expected


def test_the_profile_is_read_only_when_neither_lang_nor_cafe_lang_says() -> None:
    def stored() -> str:
        raise AssertionError("the profile was read")

    assert chosen("de", stored, {}) == "de"


def test_the_command_line_is_read_before_typer_parses_it(tmp_path: Any) -> None:
    assert given(["--lang", "cs", "games"], "--lang") == "cs"
    assert given(["show", "4", "--lang=ru"], "--lang") == "ru"
    assert given(["move", "--", "--lang", "de"], "--lang") is None
    config = {"CAFE_CONFIG_DIR": str(tmp_path)}
    (tmp_path / "config.json").write_text(
        '{"profiles": {"bob": {"language": "ru"}, "default": {"language": "cs"}}}'
    )
    assert run_language(["games"], config) == "cs"
    assert run_language(["--profile", "bob", "games"], config) == "ru"
    assert run_language(["games", "--profile", "bob"], {**config, "CAFE_PROFILE": "x"}) == "ru"
    assert run_language(["games"], {**config, "CAFE_LANG": "de"}) == "de"
    assert run_language(["--lang", "en", "games"], {**config, "CAFE_LANG": "de"}) == "en"
    (tmp_path / "config.json").write_text("{broken")  # the command itself will say so
    assert run_language(["games"], {**config, "LANG": "de_DE.UTF-8"}) == "de"


# --- help, tables, errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "args", "env"),
    [
        ("de", ["--help"], {"LANG": "de_DE.UTF-8"}),
        ("cs", ["--lang", "cs", "--help"], {"LANG": "de_DE.UTF-8"}),
        ("ru", ["--help"], {"CAFE_LANG": "ru", "LANG": "de_DE.UTF-8"}),
        ("cs", ["new", "--help", "--lang", "cs"], {}),
        ("ru", ["league", "standings", "--help"], {"LANGUAGE": "ru"}),
        ("de", ["vacation", "--help"], {"LC_ALL": "de_AT.UTF-8"}),
    ],
)
def test_help_in_the_runs_language(language: str, args: list[str], env: dict[str, str]) -> None:
    english = cafe_process(*[a for a in args if a not in ("--lang", language)], env={})
    translated = cafe_process(*args, env=env)
    assert english.returncode == translated.returncode == 0, translated.stderr
    assert "Usage: cafe" in translated.stdout  # Click's own words stay English
    assert_speaks(language, english.stdout, translated.stdout)


def test_a_player_who_never_chose_reads_the_terminals_language(
    players: list[Player], game: int
) -> None:
    """ann registered and signed in with `cafe` and never chose a language (the server reads
    English to her): her profile keeps none, so `LANG` decides — until she chooses one,
    which her profile keeps and a new machine learns at `cafe login`."""
    ann = players[0]
    german = ann.run("games", env={"LANG": "de_DE.UTF-8"})
    assert german.exit_code == ExitCode.OK, german.output
    assert german.stdout.split()[:3] == ["Nr.", "Status", "Spieler"], german.stdout
    assert_speaks("de", ann.run("games").stdout, german.stdout)
    assert ann.run("prefs", "language=ru", env={"LANG": "de_DE.UTF-8"}).exit_code == ExitCode.OK
    assert ann.run("games", env={"LANG": "de_DE.UTF-8"}).stdout.split()[:2] == ["№", "статус"]
    server = ann.cafe.server
    elsewhere = Cafe(server, ann.cafe.config_dir.parent / "another-machine")
    asked = elsewhere.run("login", ann.email, "--server", server.url, input="0000000000\n")
    assert asked.exit_code == ExitCode.NOT_SIGNED_IN, asked.output  # a new code was mailed
    signed_in = elsewhere.run("login", ann.email, "--code", server.code_for(ann.email))
    assert signed_in.exit_code == ExitCode.OK, signed_in.output
    assert run_language([], {"CAFE_CONFIG_DIR": str(elsewhere.config_dir)}) == "ru"


def test_games_and_show_in_each_language(players: list[Player], game: int) -> None:
    ann = players[0]
    profile = ["--profile", ann.name]
    where = {"CAFE_CONFIG_DIR": str(ann.cafe.config_dir)}
    for args in (["games"], ["show", str(game), "--plain"]):
        english = cafe_process(*profile, *args, env=where)
        assert english.returncode == 0, english.stderr
        # ann never chose a language: the terminal's speaks, and CAFE_LANG and --lang above it
        for language, env in (
            ("de", {"LANG": "de_DE.UTF-8"}),
            ("cs", {"LANG": "de_DE.UTF-8", "CAFE_LANG": "cs"}),
            ("ru", {"CAFE_LANG": "cs", "LANG": "de_DE.UTF-8"}),
        ):
            chosen_args = [*profile, *(["--lang", "ru"] if language == "ru" else []), *args]
            translated = cafe_process(*chosen_args, env={**where, **env})
            assert translated.returncode == 0, translated.stderr
            assert_speaks(language, english.stdout, translated.stdout)


def test_the_games_table_keeps_its_columns_aligned_in_cyrillic(ann: Player, game: int) -> None:
    shown = ann.run("--lang", "ru", "games")
    assert shown.exit_code == ExitCode.OK, shown.output
    header, row = shown.stdout.splitlines()[:2]
    assert header.split()[:3] == ["№", "статус", "игроки"]
    assert row.index("идёт") == header.index("статус")  # each cell under its heading


@pytest.mark.parametrize(
    ("language", "args", "code"),
    [
        ("cs", ["new", "--seats", "2", "--invite", "bob,cid"], ExitCode.USAGE),
        ("de", ["new", "--no-clock", "--days-per-turn", "3"], ExitCode.USAGE),
        ("ru", ["games"], ExitCode.NOT_SIGNED_IN),
    ],
)
def test_errors_in_the_runs_language(
    cafe: Cafe, language: str, args: list[str], code: ExitCode
) -> None:
    english = cafe.run(*args)
    translated = cafe.run("--lang", language, *args)
    assert english.exit_code == translated.exit_code == code
    assert translated.stderr.startswith("cafe: ")
    assert_speaks(language, english.stderr, translated.stderr)


def test_an_unknown_language_is_refused(cafe: Cafe) -> None:
    refused = cafe.run("--lang", "fr", "games")
    assert refused.exit_code == ExitCode.USAGE
    assert "'fr' is not a language of cafe: choose one of en, cs, de, ru" in refused.stderr
    assert cafe.run("games", env={"CAFE_LANG": "xx"}).exit_code == ExitCode.USAGE
    regional = cafe.run("games", env={"CAFE_LANG": "de_AT.UTF-8"})  # a locale's name will do
    assert regional.exit_code == ExitCode.NOT_SIGNED_IN
    assert regional.stderr.startswith("cafe: Sie sind nicht angemeldet")


# --- every command's output --------------------------------------------------------------

#: The languages each command is run in besides English.
TRANSLATED = ("cs", "de", "ru")

#: Lines that are the same in every language: `cafe rules`' list of its sections' words
#: (`cafe rules notation` works in each language, docs/languages.md), and a preference
#: whose value is a word the server takes as it is (`cafe prefs turn_emails=digest`).
SAME_LINES = re.compile(
    r"^(\d+ [a-z-]+( · \d+ [a-z-]+)*|(language|others_turns|reminders|timezone|turn_emails) +\S+)$",
    re.MULTILINE,
)
#: Code, commands and quoted text in a line: not words of ours.
CODE = re.compile(r"`[^`]*`|cafe [^·;\n]*|'[^']*'")


def plain_words(text: str) -> set[str]:
    """The words of `text` that are lowercase letters only (three or more), outside code,
    commands and quotes: in a translated run, those of the English run are English left."""
    tokens = (token.strip('.,;:()!?"') for token in CODE.sub(" ", text).split())
    return {token for token in tokens if re.fullmatch(r"[a-z]{3,}", token)}


#: The words the same in every run: the command's name (`cafe: …` starts an error), the
#: notation's `bar` and a rating's `sigma` (its mu and sigma, as the API names them); and
#: English words that are also the language's own.
SHARED_WORDS = {
    language: {"cafe", "bar", "sigma", *own}
    for language, own in {"cs": {"limit", "hash", "text"}, "de": set(), "ru": set()}.items()
}


def printed(result: Result) -> str:
    """What a run printed (stdout and stderr), the lines the same in every language aside."""
    return SAME_LINES.sub("", result.stdout + result.stderr)


def set_aside(text: str) -> str:
    """`text` without what may stay as it is in any language, line by line (`UNTRANSLATED`)."""
    return "\n".join(UNTRANSLATED.sub(" ", line) for line in text.splitlines())


def left_in(language: str, english: Result, translated: Result) -> list[str]:
    """What is wrong with the translated run of a command: English of ours left (a line of
    the English run, an English word, a fragment of its sentences, once commands and codes
    are set aside), mojibake, an exit code other than the English run's; and a Russian run
    without Cyrillic."""
    ours, theirs = printed(english), printed(translated)
    kept = {line.strip() for line in theirs.splitlines()}
    found = [  # a line as the English run printed it, with a word of ours in it
        line
        for line in ours.splitlines()
        if line.strip() in kept and plain_words(set_aside(line)) - SHARED_WORDS[language]
    ]
    found += ours_left(ours, theirs)
    english_words, their_words = (plain_words(text) for text in (ours, theirs))
    found += sorted((english_words & their_words) - SHARED_WORDS[language])
    found += english_left(*(set_aside(text) for text in (ours, theirs)))
    found += MOJIBAKE.findall(theirs)
    worded = sentences(set_aside(ours))  # the English run has words of ours
    if worded and language == "ru" and not any(letter in theirs for letter in OWN_LETTERS["ru"]):
        found.append("no Cyrillic")
    if translated.exit_code != english.exit_code:
        found.append(f"exit code {translated.exit_code}, the English run's {english.exit_code}")
    return found


def compare(story: Callable[[str], dict[str, Result]]) -> dict[str, list[str]]:
    """`story(language)` runs commands in that language and gives each one's run by name,
    on a state of its own where the commands change something: told in English, then in
    each of `TRANSLATED`, what each translated run left, by command and language, for
    those that left something (with what it printed)."""
    english = story("en")
    for name, run in english.items():
        assert run.stdout + run.stderr, f"{name} printed nothing"
    problems: dict[str, list[str]] = {}
    for language in TRANSLATED:
        for name, translated in story(language).items():
            found = left_in(language, english[name], translated)
            if found:
                problems[f"{name} ({language})"] = [*found, translated.stdout + translated.stderr]
    return problems


def report(problems: dict[str, list[str]]) -> str:
    """`compare`'s findings, one command and language after another, for a failure."""
    return "\n".join(
        f"{where}:\n" + "\n".join(f"  {line}" for line in found)
        for where, found in problems.items()
    )


def in_language(language: str) -> Callable[..., Result]:
    """`run(player, ARGS…)`: `cafe ARGS…` as `player` (a `Player`, or `Cafe` for a run
    with no profile) in `language`."""
    return lambda player, *args, **options: player.run("--lang", language, *args, **options)


@pytest.fixture
def season(cafe: Cafe, ann: Player, bob: Player) -> str:
    """A league of ann's whose first season runs: ann, bob, cid and dan in one division of
    two-player games; cid resigned one of his, dan withdrew from the season. Its slug."""
    cid, dan = cafe.sign_up("cid"), cafe.sign_up("dan")
    slug = f"klub-{ann.name}"
    for args in (
        ["create", slug, "--name", "Klub Kavárna", "--game-size", "2", "--division-size", "4"],
        ["open", slug],
    ):
        assert ann.run("league", *args).exit_code == ExitCode.OK
    for player in (ann, bob, cid, dan):
        assert player.run("league", "join", slug).exit_code == ExitCode.OK
    assert ann.run("league", "start", slug).exit_code == ExitCode.OK
    first = season_games(cafe, slug)[0]
    assert cafe.server.call("POST", f"/api/games/{first}/resign", cid.token).status_code in (
        200,
        403,
    )  # cid's, if he plays in it
    assert dan.run("league", "leave", slug, "--yes").exit_code == ExitCode.OK
    return slug


def test_every_reading_command_speaks_the_runs_language(
    cafe: Cafe, players: list[Player], game: int, season: str, tmp_path: Any
) -> None:
    """Every command that shows something, on a game with a turn played and a running league
    season, in Czech, German and Russian: no English sentence or word of ours left."""
    ann, bob = players
    mover = to_move(players, ann.state(game))
    assert mover.run("move", str(game), mover.best_turn(game)).exit_code == ExitCode.OK
    waiting = to_move(players, ann.state(game))
    over = cafe.started_game(ann, bob)  # a game bob left: its end, his leaving
    assert bob.run("resign", str(over), "--yes").exit_code == ExitCode.OK
    assert bob.run("vacation", "start", "3").exit_code == ExitCode.OK
    record = tmp_path / "game.txt"
    finished = play_out(Game.new(["ann7", "bob7"], seed="languages"), GreedyBot())
    record.write_text(finished.to_record())
    reads = {
        "whoami": (ann, "whoami"),
        "prefs": (ann, "prefs"),
        "games": (ann, "games"),
        "games --lobby": (ann, "games", "--lobby"),
        "games --finished": (ann, "games", "--finished"),
        "show": (ann, "show", str(game), "--plain"),
        "watch": (waiting, "watch", str(game), "--plain", "--timeout", "5"),
        "hint": (waiting, "hint", str(game)),
        "history": (ann, "history", str(game)),
        "history --detail": (ann, "history", str(game), "--detail"),
        "show (over)": (ann, "show", str(over), "--plain"),
        "history (over)": (ann, "history", str(over)),
        "vacation": (ann, "vacation"),
        "vacation (away)": (bob, "vacation"),
        "rating": (ann, "rating"),
        "rating PLAYER": (ann, "rating", ann.name),
        "rules": (ann, "rules"),
        "rules notation": (ann, "rules", "notation"),
        "verify": (ann, "verify", str(record)),
        "league list": (ann, "league", "list"),
        "league show": (ann, "league", "show", season),
        "league standings": (ann, "league", "standings", season),
        "league schedule": (ann, "league", "schedule", season),
        "league log": (ann, "league", "log", season),
    }

    def story(language: str) -> dict[str, Result]:
        run = in_language(language)
        return {name: run(player, *args) for name, (player, *args) in reads.items()}

    problems = compare(story)
    assert not problems, report(problems)


def open_game(creator: Player, seats: int = 2) -> int:
    """A new open game of `creator`'s (made in English); its number."""
    opened = creator.run("new", "--seats", str(seats))
    assert opened.exit_code == ExitCode.OK, opened.output
    found = re.search(r"Game (\d+) is open", opened.stdout)
    assert found, opened.stdout
    return int(found[1])


def season_games(cafe: Cafe, slug: str) -> list[int]:
    """The games of the running first season of `slug`."""
    season = cafe.server.call("GET", f"/api/leagues/{slug}/seasons/1", "")
    assert season.status_code == 200, season.text
    return sorted(game for division in season.json()["divisions"] for game in division["games"])


def test_every_command_that_changes_something_speaks_the_runs_language(
    cafe: Cafe, players: list[Player], tmp_path: Any
) -> None:
    """Each command that does something, told once per language on a state of its own:
    registering, signing in and out, a game from its opening to a resignation, a vacation,
    a preference, and a league season from its creation to an adjudicated game; and some
    refusals on the way."""
    ann, bob = players
    server = cafe.server

    def story(language: str) -> dict[str, Result]:
        run, said = in_language(language), {}
        newcomer = Cafe(server, tmp_path / f"newcomer-{language}")
        name = f"olga{uuid.uuid4().hex[:6]}"
        email = f"{name}@example.com"
        said["register"] = run(newcomer, "register", name, email, "--server", server.url)
        said["login"] = run(newcomer, "login", email, "--code", server.code_for(email))
        said["logout"] = run(newcomer, "logout")
        said["new"] = run(ann, "new", "--seats", "3", "--invite", bob.name)
        game = open_game(ann)
        said["join"] = run(bob, "join", str(game))
        said["join (again)"] = run(bob, "join", str(game))
        said["start"] = run(ann, "start", str(game))
        state = ann.state(game)
        mover = to_move(players, state)
        said["move (illegal)"] = run(mover, "move", str(game), "bar XXf")
        said["move"] = run(mover, "move", str(game), mover.best_turn(game))
        said["move (not your turn)"] = run(mover, "move", str(game), "bar USm")
        said["resign"] = run(mover, "resign", str(game), "--yes")
        said["vacation start"] = run(ann, "vacation", "start", "2")
        said["vacation end"] = run(ann, "vacation", "end")
        said["prefs change"] = run(ann, "prefs", "reminders=off")
        said.update(league_story(cafe, run))
        return said

    problems = compare(story)
    assert not problems, report(problems)


def league_story(cafe: Cafe, run: Callable[..., Result]) -> dict[str, Result]:
    """A league season told by `run` (`in_language`): created, opened, joined, left and
    started; paused, resumed, a member removed, a game adjudicated, an invitation."""
    said = {}
    organiser, *members = (cafe.sign_up(name) for name in ("eva", "fred", "gus", "hal", "ida"))
    slug = f"klub-{organiser.name}"
    said["league create"] = run(
        organiser, "league", "create", slug, "--name", "Klub Kavárna", "--game-size", "2",
        "--division-size", "4",
    )  # fmt: skip
    said["league open"] = run(organiser, "league", "open", slug)
    said["league join"] = run(members[0], "league", "join", slug)
    for member in members[1:]:
        assert member.run("league", "join", slug).exit_code == ExitCode.OK
    said["league leave"] = run(members[3], "league", "leave", slug, "--yes")
    said["league start"] = run(organiser, "league", "start", slug)
    said["league join (closed)"] = run(members[3], "league", "join", slug)
    said["league pause"] = run(organiser, "league", "pause", slug, "--reason", "Prázdniny")
    said["league resume"] = run(organiser, "league", "resume", slug)
    games = season_games(cafe, slug)
    said["league adjudicate"] = run(
        organiser, "league", "adjudicate", str(games[0]), "--reason", "Konec"
    )
    said["league remove"] = run(organiser, "league", "remove", slug, members[2].name,
                                "--reason", "Odjel")  # fmt: skip
    invited = f"klub-i{organiser.name}"
    assert organiser.run("league", "create", invited, "--invitation-only").exit_code == 0
    said["league invite"] = run(organiser, "league", "invite", invited, members[3].name)
    return said


# --- what the server hears and keeps -------------------------------------------------------


def listening_service(heard: list[dict[str, str]]) -> Flask:
    """A server that notes each request's headers and answers as the service would: a
    registered player (whose language is the request's, not chosen) and their preferences
    (the language chosen once a request gives one)."""
    app = Flask("listening")
    kept = {"language": "de", "language_chosen": False}

    @app.post("/api/players")
    def register() -> tuple[dict[str, Any], int]:
        heard.append(dict(request.headers))
        body = request.get_json()
        kept["language"] = request.headers.get("Accept-Language", "en")
        return {"name": body["name"], "email": body["email"], "message": "sent"}, 202

    @app.route("/api/me/preferences", methods=["GET", "PATCH"])
    def preferences() -> dict[str, Any]:
        heard.append(dict(request.headers))
        given = (request.get_json(silent=True) or {}).get("language")
        if given:
            kept.update(language=given, language_chosen=True)
        return dict(kept)

    return app


@pytest.fixture
def heard() -> Iterator[tuple[LiveServer, list[dict[str, str]]]]:
    noted: list[dict[str, str]] = []
    server = LiveServer(listening_service(noted))
    yield server, noted
    server.stop()


def test_register_sends_the_terminals_language_and_keeps_none(
    cafe: Cafe, heard: tuple[LiveServer, list[dict[str, str]]]
) -> None:
    server, noted = heard
    Store(cafe.config_dir).save(Profile(name=DEFAULT_PROFILE, language="cs"))  # someone else's
    registered = cafe.run(
        "register", "olga", "olga@example.com", "--server", server.url,
        env={"CAFE_LANG": "ru"},
    )  # fmt: skip
    assert registered.exit_code == ExitCode.OK, registered.output
    assert noted[-1]["Accept-Language"] == "ru"
    assert_speaks("ru", "", registered.stdout)
    # the new player chose no language: the profile keeps none, the terminal's counts
    where = {"CAFE_CONFIG_DIR": str(cafe.config_dir), "LANG": "de_DE.UTF-8"}
    assert run_language([], where) == "de"


def test_every_request_asks_for_the_runs_language_and_prefs_store_it(
    cafe: Cafe, heard: tuple[LiveServer, list[dict[str, str]]]
) -> None:
    server, noted = heard
    env = {"CAFE_SERVER": server.url, "CAFE_TOKEN": "cafe_any"}
    shown = cafe.run("--lang", "cs", "prefs", env=env)
    assert shown.exit_code == ExitCode.OK, shown.output
    assert noted[-1]["Accept-Language"] == "cs"
    assert shown.stdout.splitlines()[0].split() == ["nastavení", "hodnota"]
    assert cafe.run("prefs", env={**env, "LANG": "ru_RU.UTF-8"}).exit_code == ExitCode.OK
    assert noted[-1]["Accept-Language"] == "ru"


def test_prefs_language_is_what_the_next_run_speaks(
    cafe: Cafe, heard: tuple[LiveServer, list[dict[str, str]]]
) -> None:
    server, _noted = heard
    Store(cafe.config_dir).save(Profile(name=DEFAULT_PROFILE, server=server.url, token="cafe_x"))
    changed = cafe.run("prefs", "language=de")
    assert changed.exit_code == ExitCode.OK, changed.output
    assert changed.stdout.splitlines()[0].split() == ["preference", "value"]  # this run: en
    assert run_language([], {"CAFE_CONFIG_DIR": str(cafe.config_dir)}) == "de"
    again = cafe.run("prefs")
    assert again.stdout.splitlines()[0].split() == ["Einstellung", "Wert"]
    assert cafe.run("--lang", "en", "prefs").stdout.startswith("preference")


#: Prints every help text of `cafe` (each command's and each of its parameters') as JSON, in
#: the language `cafe.i18n.speaking` gives the import of the app.
EVERY_HELP = """
import json, sys
from cafe.i18n import speaking
with speaking(sys.argv[1]):
    from client.app import app
    import typer.main
    root = typer.main.get_command(app)
def walk(command, path):
    yield path, command.help
    for param in command.params:
        yield f"{path} {param.name}", getattr(param, "help", None)
    for name, sub in getattr(command, "commands", {}).items():
        yield from walk(sub, f"{path} {name}")
print(json.dumps(dict(walk(root, "cafe"))))
"""


def every_help(language: str) -> dict[str, str | None]:
    done = subprocess.run(
        [sys.executable, "-c", EVERY_HELP, language], capture_output=True, text=True, check=True
    )
    found: dict[str, str | None] = json.loads(done.stdout)
    return found


@pytest.mark.parametrize("language", ["cs", "de", "ru"])
def test_every_help_text_is_translated(language: str) -> None:
    """Each command's help and each option's and argument's: none left as in English but
    Typer's own (`--help`, shell completion)."""
    english, translated = every_help("en"), every_help(language)
    assert english.keys() == translated.keys()
    left = [
        where
        for where, text in english.items()
        if text and translated[where] == text and not where.endswith(("help", "completion"))
    ]
    assert [where for where in left if not where.startswith(ELSEWHERE)] == []


#: Commands whose options' help is translated in their own modules' change (`cafe rules`:
#: client/commands/rules.py, with the rulebooks in each language).
ELSEWHERE = ("cafe rules ",)
