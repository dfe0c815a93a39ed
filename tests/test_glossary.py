"""The game's words (the glossary of its seeds' terms, docs/languages.md) in every catalog and
every rulebook: where the English says "joker", the Czech says "žolík", the German "Joker", the
Russian "джокер" — in every translated message (`cafe/locales/*/LC_MESSAGES/cafe.po`) and in
every paragraph, list item and table cell of the rulebooks (`cafe/rulebook.<code>.md`, whose
blocks match the English book's one for one) — and none of the words the glossary says to
avoid appears anywhere ("karta" for a tile, "Spielstein", "фишка", "21 очков").

Words are matched by their stems at the start of a word, so that every case and number of a
noun counts (cs "žolíka", "žolíci"; ru "очка", "очков"), and a German compound counts too
("Geburtstagstisch" is a "Tisch"). Code (`bar DEf`, `<code>…</code>`) and placeholders
(`%(points)s`) are no words: they are left out before matching.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from cafe import i18n, rulebook
from cafe.rulebook import Block, Grid, Items, Paragraph

TRANSLATED = ("cs", "de", "ru")


@dataclass(frozen=True)
class Term:
    """A word of the game: how English says it, and the stems of the glossary's word for it
    in each language, any one of which a translation must contain."""

    english: str
    stems: dict[str, str]


#: The glossary's terms, the first word of each cell (with the seeds' own variants where the
#: cell names a phrase: cs "kartičky před sebou" for a hand). German stems stand anywhere in
#: a word (compounds), Czech and Russian ones at its start.
TERMS = {
    "guest": Term(r"\bguests?\b", {"cs": r"\bhost", "de": r"g[aä]st", "ru": r"\bгост"}),
    "tile": Term(
        r"\btiles?\b",
        {
            "cs": r"\bkartič|\bkartiček|\bhost",
            "de": r"kärtchen|karte|g[aä]st|person",
            "ru": r"\bгост|\bпосетител|\bквадрат",
        },
    ),
    "lady": Term(r"\blad(?:y|ies)\b", {"cs": r"\bd[áa]m", "de": r"frau", "ru": r"\bледи\b"}),
    "gentleman": Term(
        r"\bgentlem[ae]n\b", {"cs": r"\bp[áa]n", "de": r"m[aä]nn", "ru": r"\bджентльмен"}
    ),
    # a league's table of standings is a "tabulka" (Tabelle, таблица), a café's a "stůl"
    "table": Term(
        r"\btables?\b",
        {"cs": r"\bst[ůo]l|\btabul", "de": r"tisch|tabelle", "ru": r"\bстол|\bтаблиц"},
    ),
    "chair": Term(r"\bchairs?\b", {"cs": r"\bžidl", "de": r"st[uü]hl", "ru": r"\bстул"}),
    # the notation's `bar` is the same in every language, written in words or in code
    "bar": Term(r"\bbar\b", {"cs": r"\bbar", "de": r"\bbar", "ru": r"\bбар|\bbar\b"}),
    "joker": Term(r"\bjokers?\b", {"cs": r"\bžolí", "de": r"joker", "ru": r"\bджокер"}),
    "bag": Term(r"\bbag\b", {"cs": r"\bsáč", "de": r"s[aä]ck", "ru": r"\bсумк"}),
    "hand": Term(
        r"\bhands?\b",
        {
            "cs": r"\bkartič|\bkartiček|\bpřed (?:sebou|vámi|tebou|ním|ní|nimi)\b",
            "de": r"h[aä]nd",
            "ru": r"\bгост|\bперед (?:собой|вами|тобой|ним|ней|ними)\b",
        },
    ),
    # and the verb of a turn: cs "táhnout" ("táhne"), de "ziehen" ("zieht")
    "turn": Term(
        r"\bturns?\b", {"cs": r"\btah|\btazích\b|\btáh", "de": r"z[uü]g|zieh", "ru": r"\bход"}
    ),
    "points": Term(r"\bpoints?\b", {"cs": r"\bbod", "de": r"punkt", "ru": r"\bочк"}),
    "nation": Term(r"\bnations?\b", {"cs": r"národ", "de": r"nation", "ru": r"национальн"}),
    "single-nation table": Term(
        r"\bsingle-nation\b|\btables? of one nation\b",
        {
            "cs": r"\bjednonárodnost|\bjedné národnosti\b",
            "de": r"ein-nationen|einer nationalität\b",
            "ru": r"\bодной национальности\b",
        },
    ),
    "birthday table": Term(
        r"\bbirthday\b", {"cs": r"\bnarozenin", "de": r"geburtstag", "ru": r"\bименинни"}
    ),
    "coffee klatsch": Term(
        r"\bcoffee klatsch\b",
        {"cs": r"\bkávov\w* dýchán", "de": r"kaffeeklatsch", "ru": r"\bкофейн\w* посидел"},
    ),
    # the service's own words, not the seeds': one each, so that a page and its email never
    # name one person two ways (cs "pořadatel" and "organizátor", de "Veranstalter" and
    # "Organisator" were both in use)
    "organiser": Term(
        r"\borganis(?:e|er|ers|es|ed|ing)\b",
        {"cs": r"\bpořad|\bpořád", "de": r"veranstalt", "ru": r"\bорганиз"},
    ),
}

#: English that uses a term's word in another sense, left out before matching it.
OTHER_SENSES = {"hand": r"\bby hand\b"}

#: The glossary's "Avoid": words for the game's things that its seeds do not use (cs "karta"
#: for a tile, where "kartička" is right: the pattern is the declined "karta" alone), and
#: the second word for one of the service's own.
AVOID = {
    "cs": {
        "karta": r"\bkar(?:ta|ty|tě|tu|tou|et|tám|tách|tami)\b",
        "hrací kámen": r"\bhrac\w*\s+kam(?:en|eny|enů|enem|enech|enům)\b",
        "organizátor": r"\borganizát\w*|\borganiz(?:uj|ova)\w*",  # a league's is a pořadatel
        # and the service's words, each with the one word of docs/languages.md
        "soutěž (a league is a liga)": r"\bsoutěž\w*",
        "skupina (a division is a divize)": r"\bskupin\w*",
        "notace (the notation is the zápis)": r"\bnotac\w*",
        "předvolby (preferences are nastavení)": r"\bpředvol\w*",
        "rozehraný (a running game is běžící)": r"\brozehr\w*",
        "penalizace (a penalty is a trest)": r"\bpenaliz\w*",
        "lhůta (a deadline is a termín)": r"\blhůt\w*",
        "upomínka (a reminder is a připomínka)": r"\bupomín\w*",
    },
    "de": {
        "Figur": r"\bfigur(?:en)?\b",
        "Spielstein": r"spielstein",
        "Organisator": r"organisator\w*|organisier\w*",  # a league's is a Veranstalter
        "Rangliste (a league's standings are its Tabelle)": r"rangliste",
        "Endstand (a game's standings are its Rangfolge)": r"endstand",
        "Gruppe (a division is a Division)": r"gruppe",
        "Rücktritt (withdrawing is a Rückzug)": r"rücktritt",
        "Festlegung (a commitment is a Verpflichtung)": r"festlegung",
        "Verteilung (the deal is the Austeilen)": r"verteilung",
        "Sitzreihenfolge (the seat order is the Sitzordnung)": r"sitzreihenfolge",
        "Spielprotokoll (a game record is an Aufzeichnung)": r"spielprotokoll",
        "unterbrechen (a season is angehalten)": r"unterbr(?:ech|ich|ach|och)",
        "Brett (the board is the Spielfeld)": r"\bbrett\b",
        "bestätigt (a record is geprüft)": r"bestätigt",
    },
    "ru": {
        "фишка": r"\bфиш(?:к\w*|ек)\b",
        "очков after 1 or 21": r"(?<![\d.,])(?:\d*[02-9])?1\s+очков\b",
        "партия (a game is an игра)": r"\bпарти(?:я|и|ю|ей|ею|й|ям|ями|ях)\b",
        "группа (a division is a дивизион)": r"\bгрупп(?:а|ы|е|у|ой|ою|ам|ами|ах)?\b",
        "истечение (a time-out is a просрочка)": r"\bистечени(?:е|я|ю|ем|и|й|ям|ями|ях)\b",
        "вступить (joining a season is записаться)": r"\bвступ\w*",
        "доигранный (a finished game is законченная)": r"\bдоигран\w*",
        "подтверждено (a record is проверено)": r"\bподтвержд(?:ено|ена|ён|ены|ен)\b",
    },
}

#: Code and placeholders: `bar DEf`, <code>…</code>, 'birthday=T' (quoted), birthday=, a
#: command's words in capitals (TILE, POINTS), %(points)s, {name}, and HTML's tags.
_NOT_WORDS = re.compile(
    r"`[^`]*`|<code>.*?</code>|(?<!\w)'[^'\s][^']*'(?!\w)|\b\w+=\S*|\b[A-Z]{2,}\b"
    r"|%\(\w+\)[sd]|\{\w+\}|<[^>]+>|&\w+;"
)


def words(text: str) -> str:
    """`text` without its code, placeholders and markup."""
    return _NOT_WORDS.sub(" ", text)


def uses(text: str, term: str) -> bool:
    """Whether the English `text` uses `term` in the game's sense."""
    prose = words(text)
    if term in OTHER_SENSES:
        prose = re.sub(OTHER_SENSES[term], " ", prose, flags=re.IGNORECASE)
    return re.search(TERMS[term].english, prose, re.IGNORECASE) is not None


def says(text: str, term: str, code: str) -> bool:
    """Whether `text`, in language `code`, says `term` as the glossary does."""
    return re.search(TERMS[term].stems[code], words(text), re.IGNORECASE) is not None


def term_problems(english: str, translations: list[str], code: str) -> Iterator[str]:
    """What is wrong with `translations` (each form of a message) of `english` in `code`: a
    term of the English that one of them does not say as the glossary does."""
    for term in TERMS:
        if uses(english, term):
            for text in translations:
                if not says(text, term, code):
                    yield f"{code}: {term!r}: {english!r} is {text!r}"


def avoided(text: str, code: str) -> Iterator[str]:
    """The words of `text` (in `code`) that the glossary says to avoid."""
    for name, pattern in AVOID[code].items():
        for found in re.finditer(pattern, text, re.IGNORECASE):
            yield f"{code}: {name}: {found.group(0)!r} in {text!r}"


def message_problems(message: Message, code: str) -> list[str]:
    """A translated message's terms and avoided words; for Russian, no `очков` in the form
    of 1 and 21."""
    english = " ".join(message.id) if isinstance(message.id, tuple | list) else message.id
    forms = list(message.string) if isinstance(message.string, tuple | list) else [message.string]
    forms = [form for form in forms if form]
    found = list(term_problems(english, forms, code))
    found += [problem for form in forms for problem in avoided(form, code)]
    if code == "ru" and message.pluralizable and "очков" in message.string[0]:
        found.append(f"ru: очков in the form of 1 and 21: {message.string[0]!r}")
    return found


def catalog_problems(catalog: Catalog, code: str) -> list[str]:
    return [
        problem for message in catalog if message.id for problem in message_problems(message, code)
    ]


def read_catalog(code: str) -> Catalog:
    with (i18n.LOCALES / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.po").open("rb") as stream:
        return read_po(stream, locale=code)


def block_texts(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return [block.text]
    if isinstance(block, Items):
        return list(block.texts)
    if isinstance(block, Grid):
        return [cell for row in (block.headers, *block.rows) for cell in row]
    return []


def book_problems(english: rulebook.Rulebook, book: rulebook.Rulebook, code: str) -> list[str]:
    """The terms of each English text of the rulebook that its translation in `book` does
    not say as the glossary does, and the avoided words of the translation."""
    found: list[str] = []
    titles = [(english.title, book.title)] + [
        (ours.title, theirs.title)
        for ours, theirs in zip(english.sections, book.sections, strict=True)
    ]
    blocks = list(zip(english.intro, book.intro, strict=True)) + [
        pair
        for ours, theirs in zip(english.sections, book.sections, strict=True)
        for pair in zip(ours.blocks, theirs.blocks, strict=True)
    ]
    texts = titles + [
        (original, text)
        for ours, theirs in blocks
        for original, text in zip(block_texts(ours), block_texts(theirs), strict=True)
    ]
    for original, text in texts:
        found += term_problems(original, [text], code)
        found += avoided(text, code)
    return found


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_catalog_uses_the_glossarys_words(code: str) -> None:
    assert catalog_problems(read_catalog(code), code) == []


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_rulebook_uses_the_glossarys_words(code: str) -> None:
    english = rulebook.load(i18n.DEFAULT)
    assert book_problems(english, rulebook.load(code), code) == []


def sample(code: str, *entries: tuple[str | tuple[str, str], str | tuple[str, ...]]) -> Catalog:
    catalog = Catalog(locale=code)
    for msgid, msgstr in entries:
        catalog.add(msgid, msgstr)
    return catalog


def test_the_check_sees_a_wrong_word_and_passes_the_right_ones() -> None:
    wrong = sample(
        "cs",
        ("Your joker", "Váš divoký host"),  # no žolík
        ("%(num)s tile in the bag", "%(num)s host v pytli"),  # no sáček
        ("Send to the bar", "Poslat k pultu"),  # no bar
        ("Seat a guest at the table", "Posaďte hosta k desce"),  # no stůl
    )
    assert catalog_problems(wrong, "cs") == [
        "cs: 'joker': 'Your joker' is 'Váš divoký host'",
        "cs: 'bag': '%(num)s tile in the bag' is '%(num)s host v pytli'",
        "cs: 'bar': 'Send to the bar' is 'Poslat k pultu'",
        "cs: 'table': 'Seat a guest at the table' is 'Posaďte hosta k desce'",
    ]
    right = sample(
        "cs",
        ("Your joker", "Váš žolík"),
        ("Exchange a joker", "Vyměnit žolíka"),
        ("%(num)s tile in the bag", "%(num)s kartička v sáčku"),
        ("Play `bar DEf`", "Zahrajte `bar DEf`"),  # code is no word
        ("The rating history table", "Historie hodnocení v tabulce"),  # a table of figures
        ("The final table of the division", "Konečná tabulka divize"),  # of standings
        ("write 'birthday=T' once", "pište 'birthday=T' jednou"),  # quoted code is no word
        ("a line is 'N. PLAYER: TURN | POINTS'", "řádek je 'N. PLAYER: TURN | POINTS'"),
        ("The server plays a turn for you", "Server za vás táhne"),  # the verb of a turn
        (("%(num)s point", "%(num)s points"), ("%(num)s bod", "%(num)s body", "%(num)s bodů")),
    )
    assert catalog_problems(right, "cs") == []


@pytest.mark.parametrize(
    ("code", "msgid", "msgstr", "problem"),
    [
        ("cs", "Your tiles", "Vaše karty", "karta"),
        ("cs", "Your tiles", "Vaše hrací kameny", "hrací kámen"),
        ("de", "%(num)s tile", "%(num)s Spielstein", "Spielstein"),
        ("de", "The guests", "Die Gäste und Figuren", "Figur"),
        ("ru", "The guest", "Гость (фишка)", "фишка"),
        ("ru", "You scored 21 points", "Вы получили 21 очков", "очков after 1 or 21"),
        ("ru", "You scored 101 points", "Вы получили 101 очков", "очков after 1 or 21"),
    ],
)
def test_the_check_sees_each_avoided_word(code: str, msgid: str, msgstr: str, problem: str) -> None:
    found = catalog_problems(sample(code, (msgid, msgstr)), code)
    assert [f for f in found if f.startswith(f"{code}: {problem}:")], found


@pytest.mark.parametrize(
    ("code", "msgstr"),
    [
        ("cs", "Vaše kartičky před sebou"),  # kartička is right
        ("cs", "Kartotéka a kartáč"),
        ("de", "Die Konfiguration"),
        ("ru", "Вы получили 11 очков"),
        ("ru", "Вы получили 21 очко, а потом 25 очков"),
    ],
)
def test_the_check_passes_what_is_right(code: str, msgstr: str) -> None:
    assert list(avoided(msgstr, code)) == []


def test_the_check_sees_the_many_form_in_the_form_of_21() -> None:
    wrong = sample("ru", (("%(num)s point", "%(num)s points"), ("%(num)s очков",) * 3))
    assert catalog_problems(wrong, "ru") == ["ru: очков in the form of 1 and 21: '%(num)s очков'"]


def test_the_check_sees_a_rulebook_paragraph_without_its_term() -> None:
    english = rulebook.parse("# T\n\n## 1. One <!-- one -->\n\nA joker sits at a table.\n")
    book = rulebook.parse("# T\n\n## 1. Jedna <!-- one -->\n\nHost sedí u stolu.\n")
    assert book_problems(english, book, "cs")[0] == (
        "cs: 'joker': 'A joker sits at a table.' is 'Host sedí u stolu.'"
    )
