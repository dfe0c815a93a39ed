"""The languages the project speaks, and the words of the one in use.

Every message of ours (the engine's, the service's, `cafe`'s) is written in English in the
code and looked up in one gettext catalog per language: `cafe/locales/<lang>/LC_MESSAGES/
cafe.po`, written by the project in the terms of the game's own Czech, German and Russian
documents (docs/languages.md), and compiled to `cafe.mo` when the wheel is built.

Which language is in use is a context variable, set for one request, for the rendering of
one email or for one `cafe` run (`speaking`), so that the engine's words (quantities, rule
errors) follow their reader without knowing who that is or that Flask exists.

Messages take named placeholders, filled by the functions here as Jinja's "new style"
gettext fills them, so that Python and the templates write them one way:
`gettext("Game %(game)s: your turn", game=12)`; `ngettext("%(num)s point", "%(num)s
points", n)` (the number is `num`). A string that must be marked where it is defined and
translated where it is used (a module-level table) is wrapped in `N_`. A message made now
but read later, maybe by someone else (an error raised deep in the engine, answered by the
API or by email), is a `Text` (`lazy_gettext`, `lazy_ngettext`): it becomes words, in the
language in use then, each time it is turned into a string.
"""

from __future__ import annotations

import gettext as _gettext
import io
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from babel import Locale

#: The languages of the project, English (the code's own) first.
LANGUAGES = ("en", "cs", "de", "ru")

#: The language of a reader who has said nothing: the code's own.
DEFAULT = "en"

#: The gettext domain of every catalog: one for the engine, the service and the client.
DOMAIN = "cafe"

#: Where the catalogs are: `<lang>/LC_MESSAGES/cafe.po` (and `.mo` in an installed wheel).
LOCALES = Path(__file__).with_name("locales")

#: Each language's name in itself, for language switches and `cafe prefs`.
NAMES = {"en": "English", "cs": "Čeština", "de": "Deutsch", "ru": "Русский"}

_current: ContextVar[str] = ContextVar("cafe_language", default=DEFAULT)


def current() -> str:
    """The language in use here: the reader's, or English outside any `speaking`."""
    return _current.get()


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Everything inside speaks `language` (one of `LANGUAGES`; anything else is English)."""
    token = _current.set(language if language in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


def negotiate(tags: Iterable[str]) -> str | None:
    """The first of our languages among `tags`, most wanted first, as an `Accept-Language`
    header or the `LANGUAGE`/`LANG` variables name them: `cs-CZ`, `de_DE.UTF-8`, `ru`;
    None when none is ours (`C`, `POSIX`, `fr`)."""
    for tag in tags:
        primary = tag.strip().replace("_", "-").split("-")[0].split(".")[0].lower()
        if primary in LANGUAGES:
            return primary
    return None


def N_(message: str) -> str:
    """`message` unchanged, marked for the catalogs: translated later, where it is used."""
    return message


def gettext(message: str, **values: Any) -> str:
    """`message` in the language in use, its `%(name)s` placeholders filled from `values`."""
    translated = catalog(current()).gettext(message)
    return translated % values if values else translated


def ngettext(singular: str, plural: str, num: int, **values: Any) -> str:
    """The form of `singular`/`plural` that `num` takes in the language in use (Czech and
    Russian have three), its placeholders filled from `values` and `num`."""
    translated = catalog(current()).ngettext(singular, plural, num)
    return translated % {"num": num, **values}


def pgettext(context: str, message: str, **values: Any) -> str:
    """`message` in the sense `context` names, where English uses one word for two."""
    translated = catalog(current()).pgettext(context, message)
    return translated % values if values else translated


def npgettext(context: str, singular: str, plural: str, num: int, **values: Any) -> str:
    """`ngettext` in the sense `context` names."""
    translated = catalog(current()).npgettext(context, singular, plural, num)
    return translated % {"num": num, **values}


@cache
def catalog(language: str) -> _gettext.NullTranslations:
    """The translations of `language`: its compiled catalog where one is installed and not
    older than its source, else the source compiled here (a checkout has sources only)."""
    if language == DEFAULT or language not in LANGUAGES:
        return _gettext.NullTranslations()
    source = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    compiled = source.with_suffix(".mo")
    if compiled.exists() and (
        not source.exists() or compiled.stat().st_mtime >= source.stat().st_mtime
    ):
        with compiled.open("rb") as stream:
            return _gettext.GNUTranslations(stream)
    return _gettext.GNUTranslations(io.BytesIO(compile_catalog(source)))


#: The CLDR region of each nation whose code is not its country's: AF is Africa (region
#: 002), not Afghanistan.
REGIONS = {"AF": "002"}


def nation_name(code: str) -> str:
    """The name of the nation `code` (`cafe.board.NATIONS`: `US`, `AF`) in the language in
    use: the rulebook's own in English ("Britain", "USA"), CLDR's country or region name in
    the others, through Babel ("Spojené státy", "Afrika", "Великобритания") — never written
    by hand; English where Babel is not installed (the engine alone). The tile codes
    themselves stay the same in every language. `Country` says it when read."""
    from cafe.board import NATIONS  # noqa: PLC0415  # `import cafe.i18n` costs no engine

    english = NATIONS.get(code, code)
    language = current()
    if language == DEFAULT:
        return english
    return _territories(language).get(REGIONS.get(code, code), english)


@cache
def _territories(language: str) -> dict[str, str]:
    """CLDR's names of countries and regions in `language` (none without Babel)."""
    try:  # Babel is the service's and the client's: the engine alone goes without it
        from babel import Locale  # noqa: PLC0415
    except ImportError:
        return {}
    return dict(Locale.parse(language).territories)


#: The CLDR locale each language's dates are written by, where it is not the language's
#: own: English keeps the service's day-month order and 24-hour clock (British English).
DATE_LOCALES = {"en": "en_GB"}


def moment(seen: datetime, *, year: bool = True) -> str:
    """`seen` (an aware time, in its reader's zone) as a reader of the language in use reads
    it, with CLDR's formats through Babel: `Thu, 5 Mar 2026, 10:00 CET` (`čt 5. 3. 2026
    10:00 SEČ`, `Do., 5. März 2026, 10:00 MEZ`, `чт, 5 мар. 2026 г., 10:00 CET`). Without
    the `year`, for a table's cell, the same day without it and the time beside it, as
    narrow as it goes: `Thu 5 Mar 10:00 CET` (`čt 5. 3. 10:00 SEČ`, `Do., 5. März 10:00
    MEZ`). The one way dates are written: the service's emails and pages
    (`server.mail.times`) and `cafe` (`client.timeview`) both say them here."""
    from babel.dates import format_skeleton, format_time  # noqa: PLC0415 (the engine alone)

    locale = _date_locale()
    day_part = format_skeleton(
        "yMMMEd" if year else "MMMEd", seen, tzinfo=seen.tzinfo, locale=locale
    )
    time_part = format_time(seen, "short", tzinfo=seen.tzinfo, locale=locale)
    joined = (
        str(locale.datetime_formats["medium"]).format(time_part, day_part)
        if year
        else f"{day_part} {time_part}"
    )
    return f"{joined} {_zone_name(seen)}"


def day(seen: date) -> str:
    """The day `seen` as a reader of the language in use reads it (CLDR's, through Babel):
    `5 Mar 2026` (`5. 3. 2026`, `05.03.2026`, `5 мар. 2026 г.`)."""
    from babel.dates import format_date  # noqa: PLC0415 (the engine alone goes without)

    return format_date(seen, "medium", locale=_date_locale())


def decimal_point() -> str:
    """The decimal separator of the language in use, CLDR's through Babel: `.` in English,
    `,` in Czech, German and Russian ("1,5 bodu"); `.` without Babel (the engine alone)."""
    return _decimal_point(current())


@cache
def _decimal_point(language: str) -> str:
    try:  # Babel is the service's and the client's: the engine alone goes without it
        from babel import Locale  # noqa: PLC0415
    except ImportError:
        return "."
    locale = Locale.parse(DATE_LOCALES.get(language, language))
    return str(locale.number_symbols["latn"]["decimal"])


def _date_locale() -> Locale:
    from babel import Locale  # noqa: PLC0415 (the engine alone goes without)

    language = current()
    return Locale.parse(DATE_LOCALES.get(language, language))


def _zone_name(seen: datetime) -> str:
    """The zone's short name in the language in use where CLDR has one (`CET`, `SEČ`,
    `MEZ`), else its usual abbreviation (`JST`, `MSK`, `CET` in Russian): never an offset
    or a long name."""
    from babel.dates import format_time  # noqa: PLC0415 (the engine alone goes without)

    named = format_time(seen, "z", tzinfo=seen.tzinfo, locale=_date_locale())
    if named.isalpha() and len(named) <= 5:
        return named
    return seen.tzname() or "UTC"


def compile_catalog(source: Path) -> bytes:
    """The `.mo` bytes of the `.po` catalog at `source` (Babel reads and writes both)."""
    # Only a checkout compiles (a wheel ships `.mo` files): the engine imports without Babel.
    from babel.messages.mofile import write_mo  # noqa: PLC0415
    from babel.messages.pofile import read_po  # noqa: PLC0415

    with source.open("rb") as stream:
        messages = read_po(stream, locale=source.parent.parent.name)
    compiled = io.BytesIO()
    write_mo(compiled, messages)
    return compiled.getvalue()


class Text:
    """A message to be said later: its English (`message`, the catalogs' msgid; `plural`
    and `num` for a counted one) and its `values`, put into the language in use whenever it
    is turned into a string (`str(text)`, `"%(x)s" % {"x": text}`). A value that is itself a
    `Text` (or an error carrying one) is said in the same language. Its parts are public so
    that a message kept for later (an email's facts) can store them rather than words."""

    __slots__ = ("message", "num", "plural", "values")

    def __init__(
        self, message: str, plural: str | None = None, num: int = 1, **values: Any
    ) -> None:
        self.message = message
        self.plural = plural
        self.num = num
        self.values = values

    def __str__(self) -> str:
        if self.plural is None:
            return gettext(self.message, **self.values)
        return ngettext(self.message, self.plural, self.num, **self.values)

    def __repr__(self) -> str:
        return f"Text({str(self)!r})"


#: A message: words already, or a `Text` said when it is read.
Message: TypeAlias = str | Text


def lazy_gettext(message: str, **values: Any) -> Text:
    """`gettext(message, **values)`, said when the result is read rather than now."""
    return Text(message, **values)


def lazy_ngettext(singular: str, plural: str, num: int, **values: Any) -> Text:
    """`ngettext(singular, plural, num, **values)`, said when the result is read."""
    return Text(singular, plural, num, **values)


class Country:
    """A nation's name, said when read: English as the rulebook writes it ("Britain"), in
    another language CLDR's country name through Babel (docs/languages.md), never ours."""

    __slots__ = ("code",)

    def __init__(self, code: str) -> None:
        self.code = code

    def __str__(self) -> str:
        return nation_name(self.code)


def to_json(message: Message) -> str | dict[str, Any]:
    """`message` kept for later as JSON (an email's facts, `server.postbox.facts`): words
    already stay as they are; a `Text` is its parts, `{"message", "values", "plural",
    "num"}`, never the words of one language. A value is kept the same way (a `Text`, or an
    error's `lazy_message`), a nation as `{"nation": code}`, a number as it is, anything
    else as its text (a tile's code, a chair)."""
    if isinstance(message, str):
        return message
    values = {name: _value_to_json(value) for name, value in message.values.items()}
    return {
        "message": message.message,
        "values": values,
        "plural": message.plural,
        "num": message.num,
    }


def _value_to_json(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Country):
        return {"nation": value.code}
    said_later = getattr(value, "lazy_message", value)  # an error carries its `Text`
    return to_json(said_later) if isinstance(said_later, Text) else str(value)


def from_json(kept: str | dict[str, Any]) -> Message:
    """The message `to_json` kept: its words, or a `Text` said in the language in use when
    read."""
    if isinstance(kept, str):
        return kept
    values = {name: _value_from_json(value) for name, value in (kept.get("values") or {}).items()}
    return Text(kept["message"], kept.get("plural"), kept.get("num", 1), **values)


def _value_from_json(value: Any) -> Any:
    if isinstance(value, dict):
        return Country(value["nation"]) if "nation" in value else from_json(value)
    return value
