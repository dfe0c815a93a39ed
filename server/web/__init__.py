"""The web side: every game's page (its table talk: `talk_pages`), signing in, the
player's games and settings, the one-click unsubscribe, and the development mail viewer
(`/dev/mail`, only with `DEV_MAIL`). Server-rendered from `templates/web/`; every page
works without JavaScript. The leagues' and players' pages are `league_pages` and
`player_pages`; the rules, `rules_page`."""

from __future__ import annotations

import logging

from flask import Flask
from markupsafe import Markup

from server.config import settings_of
from server.mail.templates import QUANTITY_FILTERS, bold, command
from server.mail.times import TIME_FILTERS
from server.web import (
    account_pages,
    channel_pages,
    devmail,
    game_pages,
    languages,
    league_pages,
    player_pages,
    rules_page,
    sessions,
    talk_pages,
    unsubscribe,
)

log = logging.getLogger(__name__)


def link(href: str, text: object) -> Markup:
    """A link, for a placeholder of a translated sentence: `_("See %(rules)s.",
    rules=link("/rules", _("the rules")))`."""
    return Markup('<a href="%s">%s</a>') % (href, text)


def init_app(app: Flask) -> None:
    """Register the pages (the mail viewer only when `DEV_MAIL` is on under the
    development key), and what their templates write words with: the quantities and dates
    of `cafe.render.quantities` and `server.mail.times`, and the pieces of markup a
    translated sentence takes as placeholders (`|b`, `|cmd`, `link`)."""
    sessions.init_app(app)
    app.jinja_env.filters.update(QUANTITY_FILTERS)
    app.jinja_env.filters.update(TIME_FILTERS)
    app.jinja_env.filters.update({"b": bold, "cmd": command})
    app.jinja_env.globals["link"] = link
    app.register_blueprint(account_pages.bp)
    app.register_blueprint(channel_pages.bp)
    app.register_blueprint(game_pages.bp)
    app.register_blueprint(talk_pages.bp)
    app.register_blueprint(unsubscribe.bp)
    app.register_blueprint(league_pages.bp)
    app.register_blueprint(player_pages.bp)
    app.register_blueprint(rules_page.bp)
    languages.init_app(app)
    if devmail.may_serve(settings_of(app)):
        app.register_blueprint(devmail.bp)
    elif settings_of(app).dev_mail:
        log.warning("CAFE_DEV_MAIL is ignored: /dev/mail is served only by `cafe-server dev`")
