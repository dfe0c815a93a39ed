"""Nation names (`cafe.i18n.nation_name`): the rulebook's in English, CLDR's in Czech,
German and Russian (through Babel, never by hand), Africa being CLDR's region 002 and not
Afghanistan; the codes stay as they are."""

from __future__ import annotations

import pytest

from cafe import i18n
from cafe.board import NATIONS


def names(language: str) -> dict[str, str]:
    with i18n.speaking(language):
        return {code: i18n.nation_name(code) for code in NATIONS}


def test_english_names_are_the_rulebooks():
    assert names("en") == NATIONS


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("cs", {"AF": "Afrika", "US": "Spojené státy", "DE": "Německo", "CN": "Čína"}),
        (
            "de",
            {
                "AF": "Afrika",
                "US": "Vereinigte Staaten",
                "TR": "Türkei",
                "GB": "Vereinigtes Königreich",
            },
        ),
        ("ru", {"AF": "Африка", "RU": "Россия", "GB": "Великобритания", "CU": "Куба"}),
    ],
)
def test_the_other_languages_take_cldrs_names(language, expected):
    found = names(language)
    assert {code: found[code] for code in expected} == expected
    assert len(set(found.values())) == len(NATIONS)  # twelve names, none twice
    assert not set(found.values()) & set(NATIONS.values()) - {"China"}  # none left English
