"""The text part of every kind of email keeps its lines within 78 columns (RFC 5322's
advice; only a lone link, which cannot be broken, may be wider) and draws the board in the
80-column compact layout, without the terminal's left margin.

The emails are the one list of samples, `.ci/render_every_email.py`: it builds every kind
the package ships (a test below holds it to that), with the longest names, league name and
links there are, so a kind added later is covered too."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from mail_support import LONE_LINK, TEXT_WIDTH, sample_emails, too_wide

from cafe.render import text
from cafe.render.board_text import COMPACT
from cafe.render.common import display_width
from server.mail import messages
from server.mail.facts import EarlierTurn, LoggedTurn
from server.mail.templates import wrap

SAMPLES = sample_emails()
KINDS = sorted(SAMPLES.builders())


@pytest.fixture(scope="module")
def emails() -> dict[str, messages.Rendered]:
    return {kind: build() for kind, build in SAMPLES.builders().items()}


def test_the_samples_are_every_kind_the_package_ships():
    assert set(KINDS) == SAMPLES.shipped_kinds()


@pytest.mark.parametrize("kind", KINDS)
def test_every_text_line_fits_78_columns(emails, kind):
    assert not too_wide(emails[kind].text), "\n" + emails[kind].text


@pytest.mark.parametrize("problem", sorted(messages.REFUSALS))
def test_every_refusal_of_an_emailed_turn_fits_78_columns(monkeypatch, problem):
    refused = messages.turn_refused
    earlier = None
    if problem == "already_played":  # the turn the reply came too late for
        turn = LoggedTurn(number=7, player="x" * 24, kind="play", notation="USm@US1", points=3)
        earlier = EarlierTurn(turn=turn, source="web", at=datetime(2026, 12, 2, tzinfo=UTC))
    monkeypatch.setattr(
        messages,
        "turn_refused",
        lambda *args, **kw: refused(*args, **{**kw, "problem": problem, "earlier": earlier}),
    )
    email = SAMPLES.builders()["turn_refused"]()
    assert not too_wide(email.text), "\n" + email.text


def test_only_a_link_that_cannot_be_broken_is_wider(emails):
    wide = {
        line.strip()
        for email in emails.values()
        for line in email.text.splitlines()
        if display_width(line) > TEXT_WIDTH
    }
    assert all(LONE_LINK.fullmatch(line) for line in wide)
    assert all(line.startswith("https://cafe.example.org/unsubscribe/") for line in wide)


def test_the_board_is_the_compact_one_without_its_margin(emails):
    game, _ = SAMPLES.play(10)  # the game of the sample "your turn" email
    picture = text(game, layout=COMPACT).splitlines()
    first, second = [number for number, line in enumerate(picture) if not line][:2]
    board = [line[COMPACT.margin :] for line in picture[first + 1 : second]]
    assert all(not line[: COMPACT.margin].strip() for line in picture[first + 1 : second])
    body = emails["your_turn"].text.splitlines()
    start = body.index(board[0])
    assert body[start : start + len(board)] == board
    assert messages.PICTURE.width == TEXT_WIDTH


def test_the_seasons_link_fits_with_the_longest_slug_and_season_number(emails):
    """The text part links a season's page by its short form (`/leagues/SLUG/N`, which
    leads to the page), within 78 columns for a 32-character slug and season 2147483647;
    the HTML part links the page itself."""
    short = f"https://cafe.example.org/leagues/{SAMPLES.SEASON.slug}/{SAMPLES.SEASON.number}"
    linked = [kind for kind, email in emails.items() if short in email.text]
    assert {"league_season_started", "league_digest", "reminder", "timed_out"} <= set(linked)
    for kind in linked:
        [line] = {line for line in emails[kind].text.splitlines() if short in line}
        assert line == f"  {short}" and display_width(line) <= TEXT_WIDTH, kind
    assert "/seasons/2147483647" in emails["league_season_started"].html


def test_a_command_quoted_in_a_sentence_is_never_broken_across_lines():
    """A longer language moves a quoted command elsewhere in the line: it stays whole."""
    sentence = "Hrajte na stránce hry, příkazy `cafe show ID` a `cafe move ID TURN`, nebo " * 3
    lines = wrap(sentence).splitlines()
    assert all(line.count("`") % 2 == 0 for line in lines), lines
    assert all(len(line) <= TEXT_WIDTH for line in lines)
    assert " ".join(lines) == " ".join(sentence.split())
