"""The engine's refusals in the reader's language (issue 23): an error's message is said
when it is read, in the language in use then (`cafe.i18n.Text`), in the glossary's words,
with the nations' names from CLDR and the counted nouns in their plural forms."""

from __future__ import annotations

import pytest
from rules_helpers import IDLE_HAND, game_at, refuse

from cafe import NotationError, Turn, i18n
from cafe.errors import CafeError
from cafe.i18n import Country, Text, lazy_gettext, lazy_ngettext
from cafe.players import NAME_LENGTH, NAME_RULE, check_players

#: Jokers on the private chairs of DE2 (13: a gentleman, 14: a lady), as in the §8 tests.
JOKERS = {11: "DEm", 5: "FRm", 7: "Jf=FR", 13: "Jm", 14: "Jf"}
HAND = ["DEf", "FRf", "DEm", "USf", "Jm"]


def said(error: Exception) -> dict[str, str]:
    """`error`'s message in each language."""
    words = {}
    for code in i18n.LANGUAGES:
        with i18n.speaking(code):
            words[code] = str(error)
    return words


def test_an_error_raised_in_one_language_is_read_in_the_readers():
    """Raised while English is in use (as deep in the engine), told in Czech, German and
    Russian when read: nothing is translated where the error is made."""
    game = game_at([HAND, IDLE_HAND], chairs=JOKERS, bag_top=["ITf"])
    error = refuse(game, "swap Jm@#13", "swap")
    assert said(error) == {
        "en": "a joker cannot be swapped for a joker",
        "cs": "žolíka nelze vyměnit za žolíka",
        "de": "ein Joker kann nicht gegen einen Joker ausgewechselt werden",
        "ru": "джокера нельзя обменять на джокера",
    }


def test_a_refusal_names_the_nations_in_the_readers_language():
    """The tables a chair touches are named with their countries: the rulebook's English,
    CLDR's in the other languages (Africa is CLDR's region 002, not Afghanistan)."""
    game = game_at([["USf", *IDLE_HAND[:4]], IDLE_HAND])
    error = refuse(game, "USf@AF1-IT1", "nation")
    words = said(error)
    assert words["en"] == "USf cannot sit at AF1-IT1: chair 54 touches AF1 (Africa) and IT1 (Italy)"
    assert words["cs"].endswith("patří ke stolům AF1 (Afrika) a IT1 (Itálie)")
    assert words["de"].endswith("gehört zu AF1 (Afrika) und IT1 (Italien)")
    assert words["ru"].endswith("стоит у AF1 (Африка) и IT1 (Италия)")
    with i18n.speaking("cs"):
        assert str(Country("GB")) == "Spojené království"


def test_a_notation_error_is_read_in_each_language():
    with pytest.raises(NotationError) as caught:
        Turn.parse("XXf@DE1")
    words = said(caught.value)
    assert words["en"].startswith("cannot read tile 'XXf': unknown nation 'XX'")
    assert words["cs"].startswith("nelze přečíst kartičku 'XXf': neznámá národnost 'XX'")
    assert words["de"].startswith("Kärtchen 'XXf' ist nicht lesbar: unbekannte Nationalität")
    assert words["ru"].startswith("не удаётся прочитать гостя 'XXf': неизвестная национальность")


#: The seeds' plural table (GLOSSARY.md): n, and the Czech and Russian forms of a noun.
SEED_EXAMPLES = [1, 2, 4, 5, 11, 17, 21, 22, 25]
COUNTED = {
    ("%(num)s gentleman", "%(num)s gentlemen"): {
        "cs": ["pán", "páni", "páni", "pánů", "pánů", "pánů", "pánů", "pánů", "pánů"],
        "ru": [
            "джентльмен",
            "джентльмена",
            "джентльмена",
            "джентльменов",
            "джентльменов",
            "джентльменов",
            "джентльмен",
            "джентльмена",
            "джентльменов",
        ],
    },
    ("%(num)s lady", "%(num)s ladies"): {
        "cs": ["dáma", "dámy", "dámy", "dam", "dam", "dam", "dam", "dam", "dam"],
        "ru": ["леди"] * 9,
    },
    ("%(num)s second", "%(num)s seconds"): {
        "cs": ["sekundu", "sekundy", "sekundy", *["sekund"] * 6],
        "ru": [*["секунду", "секунды", "секунды"], *["секунд"] * 3, "секунду", "секунды", "секунд"],
    },
}


@pytest.mark.parametrize("noun", list(COUNTED))
@pytest.mark.parametrize("code", ["cs", "ru"])
def test_the_counted_nouns_of_refusals_take_the_seeds_plural_forms(noun, code):
    singular, plural = noun
    with i18n.speaking(code):
        forms = [str(lazy_ngettext(singular, plural, n)) for n in SEED_EXAMPLES]
    assert forms == [f"{n} {w}" for n, w in zip(SEED_EXAMPLES, COUNTED[noun][code], strict=True)]


def test_a_gender_balance_refusal_counts_in_czech():
    game = game_at([["FRm", "FRm", "CNf", "CNm", "RUf"], IDLE_HAND], chairs={5: "FRm"})
    error = refuse(game, "FRm@#6 FRm@#7", "gender-balance")
    with i18n.speaking("cs"):
        assert str(error) == "nerovnováha u FR1: 3 páni, 0 dam"
    assert str(error) == "gender balance at FR1: 3 gentlemen, 0 ladies"


def test_a_message_within_a_message_is_said_in_the_same_language():
    inner = lazy_gettext("nobody yet")
    outer = lazy_gettext("%(player)s is already out of the game", player=inner)
    with i18n.speaking("de"):
        assert str(outer) == "noch niemand ist bereits aus dem Spiel"
    assert str(outer) == "nobody yet is already out of the game"
    assert repr(Text("nothing")) == "Text('nothing')"


def test_the_name_rule_states_the_name_length_and_is_translated():
    assert f"up to {NAME_LENGTH - 1} letters" in NAME_RULE
    with pytest.raises(CafeError) as caught:
        check_players(["ann", "9lives"])
    with i18n.speaking("ru"):
        assert str(caught.value) == (
            "имя игрока '9lives': имя игрока: буква, а за ней до 23 букв, цифр, '_', '.' или '-'"
        )
