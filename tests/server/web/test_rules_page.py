"""`/rules`: the players' rulebook on the web, from the same text as `cafe rules`, with an
anchor for each section, in the reader's language (the anchors the same in every one);
every page's footer and every email's footer link to it."""

from __future__ import annotations

import re
from html import unescape

import pytest
from babel import Locale
from flask.testing import FlaskClient
from mail_support import sample_emails
from mojibake_support import MOJIBAKE

from cafe import rulebook
from cafe.i18n import gettext, speaking
from server.web.rules_page import inline


def visible_text(html: str) -> str:
    """The words a reader sees on the page, in order."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL)
    body = re.sub(r"</?(code|span|strong|a)\b[^>]*>", "", body)  # inline: no space
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_the_page_has_every_section_with_its_anchor_and_words(client: FlaskClient) -> None:
    page = client.get("/rules")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    words = visible_text(html)
    book = rulebook.load()
    for section in book.sections:
        assert f'<h2 id="{section.word}">{section.heading}</h2>' in html
        assert f'href="#{section.word}"' in html
        for block in section.blocks:
            if isinstance(block, rulebook.Paragraph):
                assert " ".join(rulebook.plain(block.text).split()) in words, block.text
    assert "USm@US1-US2 USf@DE2-US1" in words and "6 + 3 + 8 + 0 = 17" in words
    board = html[html.index('<figure class="board">') :]
    assert "\n  57 AF1  54 IT1  51 IT2" in board[: board.index("</figure>")]


def test_code_is_marked_up_and_kept_whole_and_text_is_escaped() -> None:
    assert str(inline("play `bar DEf` **now** <b>")) == (
        "play <code><span>bar</span> <span>DEf</span></code> <strong>now</strong> &lt;b&gt;"
    )


@pytest.mark.parametrize("path", ["/", "/signin", "/leagues", "/ratings", "/rules", "/nope"])
def test_every_page_links_to_the_rules_in_its_footer(client: FlaskClient, path: str) -> None:
    html = client.get(path).get_data(as_text=True)
    footer = html[html.index('<footer class="site">') :]
    assert 'href="/rules"' in footer and 'href="/rules#notation"' in footer


def every_email():
    """One email of every kind, as `.ci/render_every_email.py` renders them for the wheel."""
    module = sample_emails()
    return module.LINKS.base_url, module.builders()


def test_every_email_links_to_the_rules_in_both_parts(app) -> None:
    base_url, builders = every_email()
    assert len(builders) >= 20
    for kind, build in builders.items():
        with app.app_context():
            message = build()
        assert f"{base_url}/rules" in message.text, kind
        assert f'href="{base_url}/rules"' in message.html, kind


def prose(block: rulebook.Block) -> list[str]:
    """A block's sentences: a paragraph's, a list's items."""
    if isinstance(block, rulebook.Paragraph):
        return [block.text]
    return list(block.texts) if isinstance(block, rulebook.Items) else []


def read_rules(client: FlaskClient, language: str) -> str:
    """`/rules` as a reader of `language` signed out gets it: the language their browser
    asks for (and, until the pages choose it from the request, the language in use)."""
    with speaking(language):
        page = client.get("/rules", headers={"Accept-Language": language})
    assert page.status_code == 200
    return page.get_data(as_text=True)


@pytest.mark.parametrize("language", ["cs", "de", "ru"])
def test_the_page_is_in_the_readers_language_with_every_section(
    client: FlaskClient, language: str
) -> None:
    html = read_rules(client, language)
    words = visible_text(html)
    book, english = rulebook.load(language), rulebook.load("en")
    assert f"<h1>{book.title}</h1>" in html and book.title != english.title
    with speaking(language):
        assert f"<title>{gettext('The rules')} · Café International</title>" in html
    for section, original in zip(book.sections, english.sections, strict=True):
        assert f'<h2 id="{section.word}">{section.heading}</h2>' in html
        assert f'<a href="#{section.word}">{section.title}</a>' in html
        for block, was in zip(section.blocks, original.blocks, strict=True):
            for text, english_text in zip(prose(block), prose(was), strict=True):
                assert " ".join(rulebook.plain(text).split()) in words, text
                assert " ".join(rulebook.plain(english_text).split()) not in words, english_text
    assert not MOJIBAKE.findall(html)
    legend = html[html.index("<table") : html.index("</table>")]
    assert Locale.parse(language).territories["DE"] in legend  # CLDR's name, as the book's
    assert "USm@US1-US2 USf@DE2-US1" in words and "6 + 3 + 8 + 0 = 17" in words
