"""The service's side of the languages (`cafe.i18n`): Jinja's `_()`, `ngettext()` and
`{% trans %}` in the language in use, for the emails and the pages alike."""

from __future__ import annotations

from jinja2 import Environment

from cafe import i18n


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
