"""The languages (`cafe.i18n`): the language in use is the reader's only inside `speaking`,
tags from headers and the environment find our languages, and every counted noun takes the
form the seeds' own examples give in Czech and Russian (three forms, 21 unlike each other)."""

from __future__ import annotations

import gettext
import io
import json
from datetime import timedelta

import pytest

from cafe import i18n
from cafe.render import quantities

#: The glossary's plural table: n, then the Czech and the Russian form of "points".
SEED_EXAMPLES = [1, 2, 4, 5, 11, 17, 21, 22, 25]
CS_POINTS = ["bod", "body", "body", "bodů", "bodů", "bodů", "bodů", "bodů", "bodů"]
RU_POINTS = ["очко", "очка", "очка", "очков", "очков", "очков", "очко", "очка", "очков"]


@pytest.mark.parametrize(("code", "forms"), [("cs", CS_POINTS), ("ru", RU_POINTS)])
def test_points_take_the_seeds_plural_forms(code, forms):
    with i18n.speaking(code):
        assert [quantities.points(n) for n in SEED_EXAMPLES] == [
            f"+{n} {form}" for n, form in zip(SEED_EXAMPLES, forms, strict=True)
        ]
        # a negative score takes its absolute value's form
        assert quantities.points(-2) == f"-2 {forms[1]}"
        assert quantities.points(-5) == f"-5 {forms[3]}"


def test_time_left_in_each_language_never_rounds_36_hours_up():
    said = {}
    for code in i18n.LANGUAGES:
        with i18n.speaking(code):
            said[code] = quantities.time_left(timedelta(hours=36))
    assert said == {
        "en": "1 day 12 hours left",
        "cs": "zbývá 1 den 12 hodin",
        "de": "noch 1 Tag 12 Stunden",
        "ru": "осталось 1 день 12 часов",
    }


def test_the_language_is_the_readers_only_inside_speaking():
    assert i18n.current() == "en"
    with i18n.speaking("de"):
        assert i18n.current() == "de"
        with i18n.speaking("ru"):
            assert quantities.points(1) == "+1 очко"
        assert quantities.points(1) == "+1 Punkt"
    assert quantities.points(1) == "+1 point"


def test_a_language_we_do_not_speak_is_english():
    with i18n.speaking("fr"):
        assert i18n.current() == "en"
        assert quantities.points(2) == "+2 points"


@pytest.mark.parametrize(
    ("tags", "found"),
    [
        (["cs-CZ", "en"], "cs"),
        (["de_DE.UTF-8"], "de"),
        (["fr", "ru"], "ru"),
        (["RU"], "ru"),
        (["C", "POSIX", "fr_FR.UTF-8"], None),
        ([], None),
    ],
)
def test_negotiate_finds_the_first_of_our_languages(tags, found):
    assert i18n.negotiate(tags) == found


def test_a_checkout_compiles_its_catalog_sources():
    """A catalog is read from its source when no compiled one is newer (the checkout)."""
    source = i18n.LOCALES / "cs" / "LC_MESSAGES" / "cafe.po"
    compiled = gettext.GNUTranslations(io.BytesIO(i18n.compile_catalog(source)))
    assert compiled.ngettext("%(signed)s point", "%(signed)s points", 5) == "%(signed)s bodů"


def test_a_text_kept_as_json_is_said_in_the_language_it_is_read_in():
    """`to_json` keeps a message's parts, never its words: its values, an inner message, a
    nation and a counted form come back from `from_json` and are said when read."""
    inner = i18n.lazy_ngettext("%(num)s point", "%(num)s points", 5)
    text = i18n.lazy_gettext("%(who)s: %(what)s in %(where)s", who="ann", what=inner,
                             where=i18n.Country("DE"))  # fmt: skip
    kept = i18n.to_json(text)
    assert kept == {
        "message": "%(who)s: %(what)s in %(where)s",
        "values": {
            "who": "ann",
            "what": {
                "message": "%(num)s point",
                "values": {},
                "plural": "%(num)s points",
                "num": 5,
            },
            "where": {"nation": "DE"},
        },
        "plural": None,
        "num": 1,
    }
    assert json.loads(json.dumps(kept)) == kept
    read = i18n.from_json(kept)
    with i18n.speaking("ru"):
        assert str(read) == "ann: 5 очков in Германия"
    assert str(read) == "ann: 5 points in Germany"
    assert i18n.from_json("words already") == i18n.to_json("words already") == "words already"
