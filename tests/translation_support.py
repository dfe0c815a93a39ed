"""What a translated render must not keep of its English one: the tests of emails, pages and
`cafe`'s output compare the two renders of the same thing (issue 23) with these.

What is the same in every language is left out of the comparison — links, addresses, code
in backticks, tiles and turns (capitals, digits), commands — and so is text that is not
ours to translate (what a person typed, the engine's words where another catalog says
them), which a caller names in `not_ours`."""

from __future__ import annotations

import re
from collections.abc import Iterable

from mojibake_support import MOJIBAKE

__all__ = ["MOJIBAKE", "SAME", "english_left", "sentences", "without"]

#: A word that is the same in every language: a link, an address, a command or code in
#: backticks, a tile or turn (capitals, digits, `@`, `_`; a joker `Jf`, `Jm`), a command's name.
SAME = re.compile(
    r"\S+://\S+|\S+@\S+|`[^`]*`|'[^']*'|\S*[\d_@=+#]\S*|-\S+|[A-Z]{2,}\S*|\bJ[fm]\b|cafe|curl"
    r"|sha-256"
)


def without(text: str, not_ours: Iterable[str] = ()) -> str:
    """`text` with its spaces collapsed and each of `not_ours` taken out (as written, and
    with its own spaces collapsed)."""
    others = tuple(not_ours)
    for words in others:
        text = text.replace(words, " ")
    text = " ".join(text.split())
    for words in others:
        text = text.replace(" ".join(words.split()), " ")
    return " ".join(text.split())


def sentences(text: str) -> list[str]:
    """The English fragments of `text` that a translation must not keep: the pieces between
    punctuation with at least two words of letters once the same-everywhere words are
    taken out."""
    found = []
    for piece in re.split(r"[.:;!?()\n]|, | - | — ", text):
        words = [w for w in SAME.sub(" ", piece).split() if re.fullmatch(r"[A-Za-z'’-]+", w)]
        if len(words) >= 2:
            found.append(" ".join(words))
    return found


def english_left(english: str, translated: str, not_ours: Iterable[str] = ()) -> list[str]:
    """The English fragments of `english` that `translated` still has (as whole words: "and
    a" is not left in German "Hand auf"), once `not_ours` is taken out of both."""
    others = tuple(not_ours)
    there = " ".join(SAME.sub(" ", without(translated, others)).split())
    return [
        piece
        for piece in sentences(without(english, others))
        if re.search(rf"(?<![\w'’-]){re.escape(piece)}(?![\w'’-])", there)
    ]
