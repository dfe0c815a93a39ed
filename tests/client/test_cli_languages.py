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
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from client_support import CLEAN_ENV, Cafe, LiveServer, Player
from flask import Flask, request

from client.cli import run_language
from client.config import DEFAULT_PROFILE, Profile, Store
from client.errors import ExitCode
from client.language import chosen, given

#: Mojibake: UTF-8 read as cp1252 or Latin-1 ("PÅ™ed" for "Před", "Ð¥" for "Х").
MOJIBAKE = re.compile("[ÃÅÐÑ][\u0080-\u00bf\u2018-\u203a\u0152-\u0178]")
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
    assert shown.stdout.splitlines()[0].split() == ["předvolba", "hodnota"]
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
