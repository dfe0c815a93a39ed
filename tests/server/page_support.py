"""What a reader sees of a page, for the tests that compare a page's English render with
its translations (issue 23): its title, header, main part and footer — the text of each
block apart, and the words of the `title`, `aria-label`, `placeholder` and `alt` attributes
and those `play.js` shows (`data-scoring`, `data-unreachable`) — without its code (a
command, a turn: the same in every language), scripts or style."""

from __future__ import annotations

import re
from collections.abc import Iterable
from html.parser import HTMLParser

from translation_support import SAME, english_left, without

from cafe import i18n
from cafe.board import NATIONS

#: Names, the same in every language: the game's, the languages' (each in itself), the
#: nations' in English where another language writes them alike ("China"), the chat
#: services' a channel may be.
NAMES_OF_THINGS = (
    "Café International",
    *i18n.NAMES.values(),
    *NATIONS.values(),
    *("Discord", "Slack", "Matrix", "ntfy"),
)
#: The elements whose text is read apart (a heading, a cell, a button: not run together).
BLOCKS = {
    "title", "h1", "h2", "h3", "p", "li", "dt", "dd", "th", "td", "caption", "label",
    "button", "option", "section", "div", "ul", "ol", "table", "tr", "form", "select", "br",
    "header", "footer", "nav", "main", "a", "span", "summary", "details", "small",
}  # fmt: skip
#: The attributes a reader is shown or read aloud, or whose words `play.js` shows.
SAID = ("title", "aria-label", "placeholder", "alt", "data-scoring", "data-unreachable")
#: Elements whose text is no words of ours.
UNSAID = ("code", "pre", "style", "script")


class Visible(HTMLParser):
    """The pieces of a page a reader sees or hears, each block's text apart: the page's
    title and body, without its code (the same in every language), scripts or style."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[list[str]] = [[]]
        self.inside = 0
        self.hidden = 0

    def _break(self) -> None:
        if self.pieces[-1]:
            self.pieces.append([])

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("title", "body"):
            self.inside += 1
        if not self.inside:
            return
        if tag in UNSAID:
            self.hidden += 1
        if tag in BLOCKS:
            self._break()
        for name, value in attrs:
            if name in SAID and value:
                self._break()
                self.pieces[-1].append(value)
                self._break()

    def handle_endtag(self, tag: str) -> None:
        if not self.inside:
            return
        if tag in UNSAID:
            self.hidden -= 1
        if tag in BLOCKS or tag in ("title", "body"):
            self._break()
        if tag in ("title", "body"):
            self.inside -= 1

    def handle_data(self, data: str) -> None:
        if self.inside and not self.hidden:
            self.pieces[-1].append(data)

    @classmethod
    def of(cls, html: str) -> list[str]:
        reader = cls()
        reader.feed(html)
        found = (" ".join("".join(piece).split()) for piece in reader.pieces)
        return [text for text in found if text]


def english_words(piece: str, not_ours: Iterable[str] = (), same: Iterable[str] = ()) -> list[str]:
    """The English-looking words of `piece` that are ours to translate: not the same in
    every language, not `not_ours`, and not one of `same` (a word, or the whole piece)."""
    kept = set(same)
    if piece in kept:
        return []
    words = re.findall(r"[A-Za-z'’-]{2,}", SAME.sub(" ", without(piece, not_ours)))
    return [word for word in words if word not in kept]


def english_kept(
    english: str, translated: str, not_ours: Iterable[str] = (), same: Iterable[str] = ()
) -> list[str]:
    """What the translated render of a page keeps of its English render: its sentences
    (`translation_support.english_left`, each piece apart), and its pieces — a heading, a
    button, a cell — word for word where they have English words of ours (`same`: what the
    translation writes as English does, German's "Division", an email's header names)."""
    ours, theirs = Visible.of(english), Visible.of(translated)
    others = (*not_ours, *NAMES_OF_THINGS)
    left = english_left(" — ".join(ours), " — ".join(theirs), not_ours=others)
    left += [piece for piece in ours if piece in theirs and english_words(piece, others, same)]
    return left
