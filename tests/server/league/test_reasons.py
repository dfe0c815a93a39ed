"""Why a member plays in their division and how a member left, in the words the season
page and the emails share (issue 20 §2–§3): never "eliminated", the bar's word."""

from __future__ import annotations

import pytest

from server.league.reasons import left_text, placement_text


@pytest.mark.parametrize(
    ("placed", "placed_from", "division", "said"),
    [
        ("rating", None, 1, "placed by rating"),
        ("new", None, 3, "new this season"),
        ("up", 2, 1, "moved up from division 2"),
        ("down", 1, 2, "moved down from division 1"),
        ("stayed", 2, 2, "stayed in division 2"),
        ("filled", 1, 1, "stayed in division 1 to fill a place"),
        ("filled", 3, 2, "moved up from division 3 to fill a place"),
        ("evened", 2, 2, "stayed in division 2 as the divisions were evened out"),
        ("evened", 1, 2, "moved down from division 1 as the divisions were evened out"),
        (None, None, 1, ""),
    ],
)
def test_placement_in_words(placed, placed_from, division, said) -> None:
    assert placement_text(placed, placed_from, division) == said


def test_how_a_member_left_in_words() -> None:
    assert [left_text(how) for how in ("withdrew", "removed", "removed_on_time", None)] == [
        "withdrew",
        "removed by the organiser",
        "removed on time",
        "",
    ]
