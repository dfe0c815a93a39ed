"""Reading a reply's own lines: what real mail clients put around the player's answer."""

from __future__ import annotations

import pytest

from server.mail.inbound_html import html_to_text
from server.mail.reading import Choice, choose, own_lines


def test_zero_width_and_format_characters_are_dropped():
    assert own_lines("\u200b1\u200b\n\ufeff\u200e2\u200f\n") == ["1", "2"]
    assert choose(tuple(own_lines("\u200b1\u200b"))) == Choice(hint=1)


def test_hidden_html_is_never_read():
    html = '<div style="display: none;max-height:0">Your turn; reply 1 USm@US1</div><p>Thanks!</p>'
    assert html_to_text(html).split() == ["Thanks!"]


@pytest.mark.parametrize(
    "header",
    [
        "От: Café International <play@cafe.example>",
        "In data 5 maggio 2024 alle ore 10:00 Café International ha scritto:",
        "Dne út 7. 5. 2024 8:01 uživatel Café <play@cafe.example> napsal:",
        "Den 15. jun. 2016 kl. 20.42 skrev Café <play@cafe.example>:",
        "Fra: Café International",
        "Från: Café International",
        "play@cafe.example wrote:",
    ],
)
def test_quote_headers_of_many_languages_end_the_reply(header):
    text = f'Thanks!\n\n{header}\n\n  1. USm@US1   (+6 points)\n  cafe move 3 "USm@US1"\n'
    assert own_lines(text) == ["Thanks!"]
    assert choose(tuple(own_lines(text))) is None


def test_bar_and_swap_start_a_turn_only_at_the_start_of_a_line_before_a_tile():
    assert choose(("Sent from Outlook Mobile<https://foo.bar>",)) is None
    assert choose(("Have a nice bar evening",)) is None
    assert choose(("bar XXf",)) == Choice(text="bar XXf")  # tried: refused with the reason
    assert choose(("bar DEf",)) == Choice(text="bar DEf")
