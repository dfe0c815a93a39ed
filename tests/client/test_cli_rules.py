"""`cafe rules [TOPIC]`: the rulebook in the terminal, paged on a terminal and plain in a
pipe, one section by its number or word, a clear refusal for a topic it does not have,
and the same words as the web page `/rules`."""

from __future__ import annotations

import pydoc
import re

import pytest
import requests
from client_support import Cafe

from cafe import rulebook
from client.errors import ExitCode

BOOK = rulebook.load()


def words(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def test_the_whole_rules_with_every_section(cafe: Cafe) -> None:
    shown = cafe.run("rules")
    assert shown.exit_code == ExitCode.OK, shown.output
    lines = shown.stdout.splitlines()
    assert lines[:2] == [BOOK.title, "═" * len(BOOK.title)]
    for section in BOOK.sections:
        at = lines.index(section.heading)
        assert lines[at + 1] == "─" * len(section.heading)
    assert "13 notation" in shown.stdout  # the sections' words, to ask for one alone


def test_one_section_by_number_or_word(cafe: Cafe) -> None:
    by_word, by_number = cafe.run("rules", "notation"), cafe.run("rules", "13")
    assert by_word.exit_code == ExitCode.OK and by_word.stdout == by_number.stdout
    lines = by_word.stdout.splitlines()
    assert lines[0] == "13. Writing a turn"
    assert not any(line == "12. The fair bag" for line in lines)
    examples = [line.split()[0] for line in lines if re.match(r"  \S+@\S+ +[a-z]", line)]
    assert "DEf@DE1" in examples and "FRf@#5" in examples


def test_an_unknown_topic_is_refused_naming_the_sections(cafe: Cafe) -> None:
    refused = cafe.run("rules", "chess")
    assert refused.exit_code == ExitCode.USAGE
    assert refused.stderr.startswith("cafe: the rules have no section 'chess'; their sections: ")
    assert "notation" in refused.stderr and refused.stderr.count("\n") == 1


def test_paged_on_a_terminal_and_plain_when_asked(
    cafe: Cafe, monkeypatch: pytest.MonkeyPatch
) -> None:
    paged: list[str] = []
    monkeypatch.setattr("client.commands.rules.stdout_is_terminal", lambda: True)
    monkeypatch.setattr(pydoc, "pager", paged.append)
    assert cafe.run("rules").stdout == ""
    assert paged and paged[0].startswith(BOOK.title)
    plain = cafe.run("rules", "--no-pager")
    assert plain.stdout.startswith(BOOK.title) and len(paged) == 1


def test_the_terminal_and_the_web_page_say_the_same(cafe: Cafe) -> None:
    """Every paragraph and list item, word for word, in `cafe rules` and on `/rules`."""
    terminal = words(cafe.run("rules").stdout)
    page = requests.get(f"{cafe.server.url}/rules", timeout=10).text
    page = re.sub(r"</?(code|span|strong|a)\b[^>]*>", "", page)
    web = words(re.sub(r"<[^>]+>", " ", page).replace("&#39;", "'").replace("&#34;", '"'))
    for section in BOOK.sections:
        for block in section.blocks:
            texts = (
                [block.text] if isinstance(block, rulebook.Paragraph)
                else list(block.texts) if isinstance(block, rulebook.Items) else []
            )  # fmt: skip
            for text in texts:
                said = words(rulebook.plain(text))
                assert said in terminal, said
                assert said in web, said
