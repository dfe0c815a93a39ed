"""The catalogs (`tools/catalogs.py`, docs/languages.md): every message of the code is in
every language's catalog, translated, not fuzzy, with the same placeholders, and nothing the
code no longer says; each catalog's plural rule is CLDR's for its language."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from mojibake_support import MOJIBAKE

from cafe import i18n

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("catalogs", ROOT / "tools" / "catalogs.py")
assert _spec and _spec.loader
catalogs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(catalogs)


@pytest.fixture(scope="module")
def template():
    return catalogs.extract()


def test_every_language_has_a_catalog():
    assert catalogs.languages() == sorted(set(i18n.LANGUAGES) - {i18n.DEFAULT})


@pytest.mark.parametrize("code", sorted(set(i18n.LANGUAGES) - {i18n.DEFAULT}))
def test_the_catalog_is_complete_and_up_to_date(template, code):
    """Fails on a message added to the code without a translation: `make catalogs`, then
    translate what it added."""
    assert catalogs.problems(template, code) == []


@pytest.mark.parametrize(("code", "count"), [("cs", 3), ("de", 2), ("ru", 3)])
def test_each_catalog_has_cldrs_plural_rule(code, count):
    assert catalogs.read(code).num_plurals == count


@pytest.mark.parametrize("code", sorted(set(i18n.LANGUAGES) - {i18n.DEFAULT}))
def test_no_catalog_holds_mojibake(code):
    text = catalogs.path_of(code).read_text(encoding="utf-8")
    assert not MOJIBAKE.findall(text)


def test_the_checker_sees_a_missing_an_untranslated_and_a_stale_message(
    template, tmp_path, monkeypatch
):
    """The check can fail: a catalog missing a message, one left untranslated and one the
    code no longer has are each reported."""
    monkeypatch.setattr(catalogs, "LOCALES", tmp_path)
    catalog = catalogs.Catalog(locale="cs", domain=catalogs.DOMAIN)
    first, second = sorted((m for m in template if m.id), key=catalogs._key)[:2]
    catalog.add(first.id, None)
    catalog.add("A sentence the code never says", "Věta")
    catalogs.write("cs", catalog)
    found = catalogs.problems(template, "cs")
    assert f"cs: untranslated {catalogs._key(first)!r}" in found
    assert f"cs: missing {catalogs._key(second)!r}" in found
    assert "cs: not in the code 'A sentence the code never says'" in found


@pytest.mark.parametrize("word", ["Před", "něco", "sáček", "Kärtchen", "Größe", "Ваш ход", "очков"])
def test_the_mojibake_pattern_sees_the_seeds_damage(word):
    """`seeds/001`'s damage (UTF-8 read as cp1252: "PÅ™ed") and Latin-1's, never the word."""
    assert MOJIBAKE.search(word.encode().decode("cp1252", errors="ignore"))
    assert MOJIBAKE.search(word.encode().decode("latin-1"))
    assert not MOJIBAKE.search(word)


def test_one_word_in_two_senses_is_two_entries(template, tmp_path, monkeypatch):
    """A message with a context (`pgettext("season", "finished")`) is an entry of its own,
    keyed `season\\x04finished` apart from the same English without one: each is filled and
    checked by itself."""
    assert "season\x04finished" in {catalogs._key(m) for m in template if m.id}
    assert "finished" in {catalogs._key(m) for m in template if m.id}
    monkeypatch.setattr(catalogs, "LOCALES", tmp_path)
    catalog = catalogs.Catalog(locale="ru", domain=catalogs.DOMAIN)
    catalog.add("finished", "окончена")
    catalog.add("finished", None, context="season")
    catalogs.write("ru", catalog)
    source = tmp_path / "ru.json"
    source.write_text('{"season\\u0004finished": "завершён"}', encoding="utf-8")
    assert catalogs.fill("ru", source) == []
    filled = catalogs.read("ru")
    assert filled.get("finished").string == "окончена"
    assert filled.get("finished", context="season").string == "завершён"


def test_a_message_in_two_senses_is_two_entries_checked_and_filled_apart(tmp_path, monkeypatch):
    """`pgettext("stool", "bar")` and `pgettext("drinks", "bar")` are two messages (gettext
    keys them by context and msgid): each is extracted, reported missing or untranslated on
    its own, and filled by its own key (`CONTEXT\\x04MSGID`, gettext's)."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "babel.cfg").write_text("[python: *.py]\n")
    (code / "senses.py").write_text(
        'from cafe.i18n import pgettext\npgettext("stool", "bar")\npgettext("drinks", "bar")\n'
    )
    monkeypatch.setattr(catalogs, "ROOT", code)
    monkeypatch.setattr(catalogs, "LOCALES", tmp_path / "locales")
    template = catalogs.extract()
    assert sorted((m.context, m.id) for m in template if m.id) == [
        ("drinks", "bar"),
        ("stool", "bar"),
    ]
    catalog = catalogs.Catalog(locale="cs", domain=catalogs.DOMAIN)
    catalog.add("bar", "bar", context="stool")
    catalogs.write("cs", catalog)
    assert catalogs.problems(template, "cs") == ["cs: missing 'drinks\\x04bar'"]
    catalogs.update(template, "cs")
    assert catalogs.problems(template, "cs") == ["cs: untranslated 'drinks\\x04bar'"]
    filling = tmp_path / "cs.json"
    filling.write_text(json.dumps({"drinks\x04bar": "nápoje"}))
    assert catalogs.fill("cs", filling) == []
    assert catalogs.problems(template, "cs") == []
    filled = catalogs.read("cs")
    assert filled.get("bar", context="drinks").string == "nápoje"
    assert filled.get("bar", context="stool").string == "bar"
