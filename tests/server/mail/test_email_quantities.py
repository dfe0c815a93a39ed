"""Every kind of email says a count of one in the singular (issue 20 item 9): "+1 point",
"1 game", "1 day" — never "1 points", "1 turns", "1 games", "1 days". The samples are the
one list of every kind (`.ci/render_every_email.py`), built with 1 for every count they
choose; the HTML part is read as text."""

from __future__ import annotations

import re

import pytest
from mail_support import read_html, sample_emails

SAMPLES = sample_emails()
ONES = SAMPLES.builders(ones=True)
#: A count of one with its noun in the plural.
PLURAL_ONE = re.compile(
    r"(?<![\d.,])[+-]?1 (points|turns|games|days|hours|minutes|seats|players|tiles)\b"
)


@pytest.mark.parametrize("kind", sorted(ONES))
def test_a_count_of_one_is_singular(kind):
    email = ONES[kind]()
    html = " ".join(" ".join(read_html(email.html).text).split())
    for part, shown in (("subject", email.subject), ("text", email.text), ("html", html)):
        flat = " ".join(shown.split())
        assert not PLURAL_ONE.search(flat), f"{kind} {part}: {PLURAL_ONE.findall(flat)}\n{flat}"


def test_the_ones_are_said_where_they_are_counted():
    said = {kind: " ".join(build().text.split()) for kind, build in ONES.items()}
    assert "(+1 point)" in said["turn_refused"] and "(+1 point)" in said["digest"]
    assert "1 day ago for 1 player" in said["game_expired"]
    assert "valid for 1 minute," in said["signin_code"]
