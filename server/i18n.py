"""The service's side of the languages (`cafe.i18n`): which language and time zone each
request and each email is in, and Jinja's `_()`, `ngettext()` and `{% trans %}` in them.

Who reads which language (docs/languages.md) is decided here, once:

- a **page**: the signed-in player's language; signed out, the one chosen with the page's
  language switch (the `lang` cookie, `server.web.languages`), else the browser's
  `Accept-Language`, else English;
- an **API** `message`: `Accept-Language` (`cafe` sends the terminal's language), else the
  caller's language once their token names them, else English; the `error` codes are the
  same in every language;
- an **email**: its recipient's language and time zone, when it is rendered (`reading`).

The language in use is `cafe.i18n`'s context variable, so the engine's words and the
templates follow it; the time zone in use is this module's (`zone`), the one pages show
times in when they name none. Flask-Babel is given both (`init_app`), so that its formats
follow them too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar

import flask_babel
from flask import Flask, g, request
from jinja2 import Environment

from cafe import i18n
from server.models import Player

#: The cookie the page's language switch sets for a reader who is not signed in.
LANGUAGE_COOKIE = "lang"

#: The zone times are shown in when nothing else names one.
DEFAULT_ZONE = "UTC"

_zone: ContextVar[str] = ContextVar("cafe_zone", default=DEFAULT_ZONE)


def zone() -> str:
    """The time zone in use here (an IANA name): the reader's, else UTC."""
    return _zone.get()


@contextmanager
def reading(language: str, zone_name: str = DEFAULT_ZONE) -> Iterator[None]:
    """Everything inside is written for a reader of `language` in the zone `zone_name`:
    an email for its recipient."""
    token = _zone.set(zone_name)
    try:
        with i18n.speaking(language):
            yield
    finally:
        _zone.reset(token)


def _ours(code: str | None) -> str | None:
    return code if code in i18n.LANGUAGES else None


def asked() -> str | None:
    """The first of our languages the request's `Accept-Language` asks for, if any."""
    return i18n.negotiate(tag for tag, quality in request.accept_languages if quality > 0)


def is_api() -> bool:
    """Whether the request is the API's (its messages follow `Accept-Language` first)."""
    return request.path.startswith("/api/")


def request_language(player: Player | None) -> str:
    """The language of this request, read by `player` (None: nobody signed in, or not
    known yet): the one rule of the module's docstring."""
    known = _ours(player.language) if player is not None else None
    if is_api():
        return asked() or known or i18n.DEFAULT
    chosen = _ours(request.cookies.get(LANGUAGE_COOKIE))
    return known or chosen or asked() or i18n.DEFAULT


def use_for_request(player: Player | None) -> None:
    """Speak `request_language(player)` until the request ends (and the player's time zone,
    if known): called before every request, and again when the API learns who calls —
    which changes nothing when the caller reads what the request already speaks (as most
    do: the language they asked for, in UTC), and then costs nothing either."""
    zone_name = player.timezone if player is not None else DEFAULT_ZONE
    language = request_language(player)
    if "_i18n_readers" not in g:
        g._i18n_readers = ExitStack()  # closed when the request ends: what was before is back
    elif (language, zone_name) == (i18n.current(), zone()):
        return
    g._i18n_readers.enter_context(reading(language, zone_name))
    flask_babel.refresh()


def _restore(_error: BaseException | None = None) -> None:
    readers: ExitStack | None = g.pop("_i18n_readers", None)
    if readers is not None:
        readers.close()


def init_app(app: Flask, viewer: Callable[[], Player | None]) -> None:
    """Speak each request's language (`viewer`: the player signed in on a page, if any),
    and have Flask-Babel follow the language and the zone in use. Our messages are
    `cafe.i18n`'s catalogs (`install`), not Flask-Babel's, which is given no Jinja part."""
    flask_babel.Babel(
        app,
        configure_jinja=False,
        default_domain=i18n.DOMAIN,
        default_translation_directories=str(i18n.LOCALES),
        locale_selector=i18n.current,
        timezone_selector=zone,
    )

    @app.before_request
    def _speak() -> None:
        use_for_request(None if is_api() else viewer())

    app.teardown_request(_restore)
    app.jinja_env.globals["language"] = i18n.current


def install(environment: Environment) -> None:
    """Jinja's i18n extension on `environment`, speaking `cafe.i18n.current()` at each
    render. Jinja fills the placeholders itself ("new style": `_("Game %(id)s", id=g)`,
    `num` in a plural), and a `{% trans %}` block's whitespace is collapsed, so that a
    message reads the same in a template and in the catalog."""
    environment.add_extension("jinja2.ext.i18n")
    environment.policies["ext.i18n.trimmed"] = True
    environment.install_gettext_callables(  # type: ignore[attr-defined]  # added by the extension
        lambda message: i18n.catalog(i18n.current()).gettext(message),
        lambda singular, plural, n: i18n.catalog(i18n.current()).ngettext(singular, plural, n),
        newstyle=True,
        pgettext=lambda context, message: i18n.catalog(i18n.current()).pgettext(context, message),
        npgettext=lambda context, singular, plural, n: i18n.catalog(i18n.current()).npgettext(
            context, singular, plural, n
        ),
    )
