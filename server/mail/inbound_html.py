"""An HTML-only reply as plain text, without the email it quotes.

Mail programs mark what they quote: `<blockquote>`, Gmail's `gmail_quote`, Thunderbird's
`moz-cite-prefix`, Yahoo's `yahoo_quoted`, Proton's `protonmail_quote`, Outlook's
`divRplyFwdMsg` / `appendonsend` (after which everything is the old email). Text inside
those is dropped, and so is text nobody sees (`display:none`, as the preheader of our own
emails, quoted without a mark by some programs); block elements become line breaks.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_QUOTE_MARKS = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote")
_THE_REST_IS_QUOTED = ("divrplyfwdmsg", "appendonsend")
_HIDDEN = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_SKIPPED = frozenset({"blockquote", "style", "script", "head", "title"})
_BLOCKS = frozenset(
    {"br", "p", "div", "tr", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "pre", "hr"}
)
_VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr"})


class _TextOfReply(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self.skipping: list[str] = []  # open elements whose content is dropped
        self.done = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.done:
            return
        marks = " ".join(value or "" for name, value in attrs if name in ("class", "id")).lower()
        if any(mark in marks for mark in _THE_REST_IS_QUOTED):
            self.done = True
            return
        if tag in _BLOCKS:
            self.chunks.append("\n")
        if tag in _VOID:
            return
        style = " ".join(value or "" for name, value in attrs if name == "style")
        hidden = _HIDDEN.search(style) is not None
        if (
            self.skipping
            or hidden
            or tag in _SKIPPED
            or any(mark in marks for mark in _QUOTE_MARKS)
        ):
            self.skipping.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()
        if tag in _BLOCKS:
            self.chunks.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.done and not self.skipping:
            self.chunks.append(data)


def html_to_text(html: str) -> str:
    """The visible, unquoted text of `html`, one line per block."""
    parser = _TextOfReply()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # html.parser gives up on some broken markup
        pass
    return "".join(parser.chunks).replace("\xa0", " ")
