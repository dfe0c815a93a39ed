"""The words a reply may use, in every language the service speaks (docs/languages.md).

A reply is read the same whatever the player's language: the turn notation (`DEf@DE1`, the
tile codes, the chairs) is the same everywhere, and each word around it (`bar`, `swap`,
`birthday=`, `join`, `game`, `say:`) is accepted in English, Czech (with or without its
diacritics), German and Russian alike, in any case. Every word is compared folded (`fold`),
so that `výměna`, `vymena` and `VÝMĚNA` are one word. The seeds' own words are the ones
listed: the game's terms of docs/languages.md and the verbs a player writes for them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from cafe.notation import BIRTHDAY, TurnKind


def fold(text: str) -> str:
    """`text` as words are compared: lower case, without diacritics (`Výměna` → `vymena`;
    Russian `й` and `ё` are folded alike, on both sides of every comparison)."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _folded(words: Iterable[str]) -> frozenset[str]:
    return frozenset(fold(word) for word in words)


#: The first word of a bar turn (`bar DEf`): cs and de say "bar" too.
BAR_WORDS = _folded(("bar", "бар"))
#: The first word of a joker swap (`swap DEf@DE1`).
SWAP_WORDS = _folded(
    (
        "swap",
        "exchange",
        "výměna",
        "vyměnit",
        "vyměň",
        "tausch",
        "tausche",
        "tauschen",
        "auswechseln",
        "wechsel",
        "обмен",
        "обменять",
        "обменяй",
        "замена",
        "заменить",
    )
)
#: The modifier that names the birthday nation, before its `=` (`birthday=DE`).
BIRTHDAY_WORDS = _folded((BIRTHDAY, "narozeniny", "geburtstag", "именины"))
#: Words that take the seat a game's invitation offers, or register for a league season:
#: "join", and "yes" in each language.
JOIN_WORDS = _folded(
    (
        "join",
        "yes",
        "připojit",
        "připojuji",
        "přidat",
        "hraju",
        "ano",
        "beitreten",
        "mitspielen",
        "ja",
        "присоединиться",
        "вступить",
        "играю",
        "да",
    )
)
#: The word that begins a line of a reply to a game's email with a message for the game's
#: table (`say: good luck!`): "say" and "tell", and each language's own.
SAY_WORDS = _folded(
    (
        "say",
        "tell",
        "řekni",
        "říct",
        "vzkaz",
        "sag",
        "sage",
        "sagen",
        "скажи",
        "сказать",
    )
)
#: The word before a game's number in a line of a reply to a season's start email
#: (`game 14: ESm@ES1`).
GAME_WORDS = _folded(("game", "hra", "spiel", "partie", "игра", "партия"))

_TOKENS = re.compile(r"(\s+)")
_PUNCTUATION = ".,!;"


def as_notation(line: str) -> str:
    """`line` with its words in the notation's own (`vymena DEf@DE1` → `swap DEf@DE1`,
    `бар DEf` → `bar DEf`, `narozeniny=DE` → `birthday=DE`); the rest as it was."""
    pieces = _TOKENS.split(line.strip())
    if pieces and pieces[0]:
        head = fold(pieces[0])
        if head in BAR_WORDS:
            pieces[0] = TurnKind.BAR.value
        elif head in SWAP_WORDS:
            pieces[0] = TurnKind.SWAP.value
    for index, piece in enumerate(pieces):
        word, equals, value = piece.partition("=")
        if equals and fold(word) in BIRTHDAY_WORDS:
            pieces[index] = f"{BIRTHDAY}={value}"
    return "".join(pieces)


def means_join(line: str) -> bool:
    """Whether a reply's line starts with a word that takes the offered seat (`join`,
    `Ano!`, `ja`, `да.`)."""
    words = line.split()
    return bool(words) and fold(words[0]).strip(_PUNCTUATION) in JOIN_WORDS


#: A registration's reply (`join`, `cafe league join spring`, `Ano!`): its first line.
_JOIN_LINE = re.compile(r"(?:cafe\s+league\s+)?(\S+?)(?:\s+[a-z0-9-]{1,32})?\s*[.!]?")
#: A line of a reply to a season's start email that plays a turn: `14: ESm@ES1`,
#: `game 14: ESm@ES1`, `hra #14: ESm@ES1`.
_GAME_TURN = re.compile(r"(?:([^\W\d_]+)\s+)?#?([0-9]{1,10})\s*:\s*(\S.*)")


def is_join_line(line: str) -> bool:
    """Whether a reply's line says only that its author joins: a join word, maybe after
    `cafe league` and before a league's name (the `cafe` command one would type)."""
    match = _JOIN_LINE.fullmatch(fold(line).strip())
    return match is not None and match[1].rstrip(_PUNCTUATION) in JOIN_WORDS


def game_turn(line: str) -> tuple[int, str] | None:
    """The game and the turn of a line `GAME: TURN` (its word for "game" in any language);
    None for any other line."""
    match = _GAME_TURN.fullmatch(line.strip())
    if match is None or (match[1] is not None and fold(match[1]) not in GAME_WORDS):
        return None
    return int(match[2]), match[3].strip()


#: A line with a message for the table: a word, a colon, the message.
_SAY = re.compile(r"([^\W\d_]+)[ \t]*:[ \t]*(.*)", re.DOTALL)


def said(line: str) -> str | None:
    """The message of a reply's line `say: TEXT` (its word in any language: `Sag: …`,
    `řekni: …`, `скажи: …`), trimmed (it may be empty); None for any other line."""
    match = _SAY.fullmatch(line.strip())
    if match is None or fold(match[1]) not in SAY_WORDS:
        return None
    return match[2].strip()
