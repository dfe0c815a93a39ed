"""`cafe rules [TOPIC]`: the rulebook in the terminal, paged on a terminal and plain in a
pipe, one section by its number or word, a clear refusal for a topic it does not have,
and the same words as the web page `/rules`; in the reader's language, the sections' words
the same in every one."""

from __future__ import annotations

import pydoc
import re

import pytest
import requests
from client_support import Cafe
from mojibake_support import MOJIBAKE
from typer.testing import Result

from cafe import rulebook
from cafe.i18n import speaking
from client.errors import ExitCode

BOOK = rulebook.load("en")


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


def run_in(cafe: Cafe, language: str, *args: str) -> Result:
    """`cafe ARGS…` for a reader of `language` (`CAFE_LANG`; and, until `cafe` chooses its
    language from it, the language in use)."""
    with speaking(language):
        return cafe.run(*args, "--no-pager", env={"CAFE_LANG": language})


@pytest.mark.parametrize("language", ["cs", "de", "ru"])
def test_the_rules_in_the_readers_language(cafe: Cafe, language: str) -> None:
    book = rulebook.load(language)
    shown = run_in(cafe, language, "rules")
    assert shown.exit_code == ExitCode.OK, shown.output
    lines = shown.stdout.splitlines()
    assert lines[:2] == [book.title, "═" * len(book.title)]
    for section, english in zip(book.sections, BOOK.sections, strict=True):
        at = lines.index(section.heading)
        assert lines[at + 1] == "─" * len(section.heading)
        assert english.heading not in lines
    assert "13 notation" in shown.stdout and "The sections" not in shown.stdout
    said = words(shown.stdout)
    for section in book.sections:
        for block in section.blocks:
            if isinstance(block, rulebook.Paragraph):
                assert words(rulebook.plain(block.text)) in said, block.text
    assert not MOJIBAKE.findall(shown.stdout)


@pytest.mark.parametrize(
    ("language", "heading", "refusal"),
    [
        ("cs", "13. Zápis tahu", "cafe: pravidla nemají oddíl 'chess'; jejich oddíly: "),
        ("de", "13. Einen Zug schreiben", "cafe: die Regeln haben keinen Abschnitt 'chess'; "),
        ("ru", "13. Запись хода", "cafe: в правилах нет раздела 'chess'; их разделы: "),
    ],
)
def test_a_section_by_the_same_word_in_every_language(
    cafe: Cafe, language: str, heading: str, refusal: str
) -> None:
    by_word, by_number = (
        run_in(cafe, language, "rules", "notation"),
        run_in(cafe, language, "rules", "13"),
    )
    assert by_word.exit_code == ExitCode.OK and by_word.stdout == by_number.stdout
    assert by_word.stdout.splitlines()[0] == heading
    assert "  FRf@#5" in by_word.stdout
    refused = run_in(cafe, language, "rules", "chess")
    assert refused.exit_code == ExitCode.USAGE
    assert refused.stderr.startswith(refusal) and "fair-bag, notation" in refused.stderr
