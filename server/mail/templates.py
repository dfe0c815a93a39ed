"""Rendering the `templates/email/<name>.txt` + `<name>.html` pairs with Jinja.

The templates are package data (`server/templates/email/`, a link to the checkout's
`templates/email/`), loaded through the installed `server` package wherever it lives.

Both parts of every message extend one layout (`base.txt`, `base.html`). The subject is the
`subject` block of the `.txt` template, so it is written once, next to the text. HTML is
autoescaped; the text part is not (it is not markup). A text line longer than `TEXT_WIDTH`
columns — RFC 5322's 78 — is an error in the template, caught by the tests over every
kind of email; text that comes from outside the template (a name, a reason, a league's
name) goes through the `wrap` filter, which breaks lines between words only, so that a link
or a turn is never cut.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from cafe import i18n as languages
from cafe.render import quantities
from cafe.render.palette import PALETTE
from server import i18n
from server.mail.times import TIME_FILTERS

#: Where the email pairs are: a package and a folder inside it.
TEMPLATE_PACKAGE, TEMPLATE_FOLDER = "server", "templates/email"

#: The widest line of a text part, in columns (RFC 5322, 2.1.1: lines SHOULD be no longer
#: than 78 characters); the text board picture is as wide (`server.mail.messages.PICTURE`).
TEXT_WIDTH = 78

#: The template filters that write quantities (`cafe.render.quantities`), for the emails
#: and the web pages alike: `{{ hint.points|points }}`, `{{ row.points|league_points }}`.
QUANTITY_FILTERS = {
    "signed": quantities.signed,
    "points": quantities.points,
    "league_points": quantities.league_points,
    "rating": quantities.rating,
    "rating_change": quantities.rating_change,
    "bank": quantities.bank,
}


def bold(value: Any) -> Markup:
    """`value` in bold, escaped, for an HTML part: a word stressed inside a translated
    sentence is passed to it as a placeholder's value (`_("… %(why)s", why=why|b)`)."""
    return Markup("<b>%s</b>") % value


def command(value: Any) -> Markup:
    """`value` set as code (a command, a reply address) inside an HTML sentence."""
    return Markup("<code>%s</code>") % value


def link(url: str, text: Any) -> Markup:
    """A link in the colour of the HTML parts, for a placeholder of a translated sentence."""
    return Markup('<a href="%s" style="color:%s;">%s</a>') % (url, PALETTE["wood"], text)


@dataclass(frozen=True, slots=True)
class Rendered:
    """One message's subject, plain-text part and HTML part."""

    subject: str
    text: str
    html: str


class _Environment(Environment):
    """Jinja's environment, reading `x.key` of a plain dict as its item first.

    The builders' contexts are dicts (players, hints, …), and Jinja tries an attribute
    first: every `p.name` raised and caught an AttributeError before the item was found,
    a quarter of the time of rendering a "your turn" pair. The templates see the same
    values: no context dict has a key named like a dict method, and a missing key still
    falls back to Jinja's own lookup (the dict's methods, then the undefined value)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


#: A word that must stay whole however long it is: a link or an address.
_LINK = re.compile(r"[a-z]+://\S+|\S+@\S+")
#: A command quoted in a sentence (`cafe move ID TURN`): its words stay on one line.
_QUOTED = re.compile(r"`[^`\n]+`")
#: What holds a quoted command's words together while a paragraph is filled.
_JOINED = "\x00"
#: The spaces a line may break at: not the no-break ones CLDR writes inside a date
#: ("5 мар. 2026\u202fг."), which `str.split()` would also take.
_BREAKS = re.compile(r"[ \t\n\r\f\v]+")


def _split(text: str) -> list[str]:
    """The words of `text` between the spaces a line may break at."""
    return [word for word in _BREAKS.split(text) if word]


def _words(paragraph: str, room: int) -> str:
    """The paragraph's words, each one longer than `room` cut into pieces unless it is a
    link (which a line break would make useless)."""
    return " ".join(
        " ".join(word[start : start + room] for start in range(0, len(word), room))
        if len(word) > room and not _LINK.fullmatch(word)
        else word
        for word in _split(paragraph)
    )


def wrap(text: str, indent: str = "", then: str | None = None) -> str:
    """`text` reflowed into lines of at most `TEXT_WIDTH` columns, paragraph by paragraph
    (they are parted by blank lines): the first line of each starts with `indent`, the
    further ones with `then` (default `indent`). Lines break between words; a word longer
    than a line is cut, but for a link, which stands alone on its line; a command quoted in
    backticks is not broken. A final newline is kept."""
    end = "\n" if text.endswith("\n") else ""
    whole = text.strip("\n")
    if len(indent) + len(whole) <= TEXT_WIDTH and whole == " ".join(_split(whole)):
        return indent + whole + end  # one line that fits: most of them (textwrap is slow)
    later = indent if then is None else then
    room = TEXT_WIDTH - max(len(indent), len(later))
    whole = _QUOTED.sub(lambda quoted: quoted[0].replace(" ", _JOINED), whole)
    filled = (
        textwrap.fill(
            _words(paragraph, room),
            width=TEXT_WIDTH,
            initial_indent=indent,
            subsequent_indent=later,
            break_long_words=False,
            break_on_hyphens=False,
        )
        for paragraph in whole.split("\n\n")
    )
    return "\n\n".join(filled).replace(_JOINED, " ") + end


def _environment() -> Environment:
    environment = _Environment(
        loader=PackageLoader(TEMPLATE_PACKAGE, TEMPLATE_FOLDER),
        undefined=StrictUndefined,
        autoescape=select_autoescape(enabled_extensions=("html",), default=False),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates ship with the code: no file checks on every email
    )
    i18n.install(environment)
    environment.filters.update(QUANTITY_FILTERS)
    environment.filters.update(TIME_FILTERS)
    environment.filters["wrap"] = wrap
    environment.filters["b"] = bold
    environment.filters["cmd"] = command
    environment.globals["link"] = link
    environment.globals["palette"] = PALETTE
    return environment


_ENVIRONMENT = _environment()


def render(name: str, context: Mapping[str, Any]) -> Rendered:
    """Render the pair `name.txt` / `name.html` with `context` (a pure function of it and
    of the language in use, `cafe.i18n.current()`, which the HTML part declares)."""
    text_template = _ENVIRONMENT.get_template(f"{name}.txt")
    subject_block = text_template.blocks.get("subject")
    if subject_block is None:
        raise ValueError(f"templates/email/{name}.txt has no subject block")
    subject = "".join(subject_block(text_template.new_context(dict(context)))).strip()
    full = {**context, "subject": subject, "language": languages.current()}
    text = text_template.render(full)
    html = _ENVIRONMENT.get_template(f"{name}.html").render(full)
    return Rendered(subject=subject, text=text, html=html)
