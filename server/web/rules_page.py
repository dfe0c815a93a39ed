"""`/rules`: the rules of the game for players, from the same text as `cafe rules`
(`cafe.rulebook`), in the reader's language: a list of the sections, then every section
with an anchor of its word (`/rules#notation`, the same in every language), linked from
every page's footer and every email's."""

from __future__ import annotations

from flask import Blueprint, render_template
from markupsafe import Markup, escape

from cafe import rulebook
from server.apispec import page

bp = Blueprint("rules_page", __name__)

#: How each kind of inline run of the rulebook is marked up.
_TAGS = {"code": "code", "strong": "strong"}


def inline(text: str) -> Markup:
    """A text of the rulebook as HTML: escaped, its `code` and **bold** marked up. Each
    word of a piece of code is a `span` the page keeps on one line, so that a turn breaks
    between its words only, never at a chair's hyphen (`DE1-FR1`)."""
    parts = []
    for kind, run in rulebook.spans(text):
        tag = _TAGS.get(kind)
        if tag is None:
            parts.append(escape(run))
            continue
        words = run.split(" ") if kind == "code" else [run]
        inner = Markup(" ").join(
            Markup("<span>%s</span>") % word if kind == "code" else escape(word) for word in words
        )
        parts.append(Markup(f"<{tag}>{inner}</{tag}>"))
    return Markup("").join(parts)


@bp.app_template_filter("rulebook_inline")
def _inline_filter(text: str) -> Markup:
    return inline(text)


@bp.get("/rules")
@page(200)
def rules() -> str:
    """The whole rulebook on one page, the book of the language in use."""
    return render_template("web/rules.html", book=rulebook.load())
