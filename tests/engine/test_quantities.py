"""One way to write each quantity (`cafe.render.quantities`): time left and durations rounded
down in their two largest units, the vacation bank in days and hours, points signed and
counted, league points without needless decimals, ratings to one decimal place."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

import pytest

from cafe.i18n import speaking
from cafe.render import quantities

D, H, M, S = timedelta(days=1), timedelta(hours=1), timedelta(minutes=1), timedelta(seconds=1)


@pytest.mark.parametrize(
    ("span", "words"),
    [
        (2 * D + 23 * H + 59 * M + 30 * S, "2 days 23 hours left"),  # never rounded up
        (36 * H, "1 day 12 hours left"),
        (3 * D, "3 days left"),
        (D + 5 * M, "1 day left"),
        (D + H, "1 day 1 hour left"),
        (5 * H + 10 * M, "5 hours 10 minutes left"),
        (H + 59 * S, "1 hour left"),
        (M, "1 minute left"),
        (40 * M + 59 * S, "40 minutes left"),
        (30 * S, "less than a minute left"),
        (timedelta(0), "time is up"),
        (-H, "time is up"),
    ],
)
def test_time_left_is_rounded_down_in_two_units(span: timedelta, words: str) -> None:
    assert quantities.time_left(span) == words


def test_less_than_a_day_is_urgent() -> None:
    assert quantities.urgent(D - S) and quantities.urgent(-H)
    assert not quantities.urgent(D)


@pytest.mark.parametrize(
    ("hours", "words"),
    [(321, "13 days 9 hours"), (14 * 24, "14 days"), (25, "1 day 1 hour"), (5, "5 hours"),
     (1, "1 hour"), (0, "0 days")],
)  # fmt: skip
def test_the_bank_is_days_and_hours(hours: int, words: str) -> None:
    assert quantities.bank(hours) == words


def test_a_bank_in_days_is_read_to_the_hour() -> None:
    assert quantities.bank_hours(13.375) == 321
    assert quantities.bank_hours((14 * 24 + 1) / 24) == 14 * 24 + 1  # no float drift


@pytest.mark.parametrize(
    ("number", "words"),
    [(1, "+1 point"), (-1, "-1 point"), (17, "+17 points"), (-4, "-4 points"), (0, "0 points")],
)
def test_points_are_signed_and_counted(number: int, words: str) -> None:
    assert quantities.points(number) == words


def test_signed_numbers() -> None:
    assert [quantities.signed(n) for n in (3, -10, 0)] == ["+3", "-10", "0"]
    assert quantities.signed(-2, minus="−") == "−2"


@pytest.mark.parametrize(
    ("value", "words"),
    [(Fraction(3), "3"), (Fraction(3, 2), "1.5"), (Fraction(7, 3), "2.33"), (2.0, "2"),
     (Fraction(0), "0")],
)  # fmt: skip
def test_league_points_drop_needless_decimals(value: Fraction | float, words: str) -> None:
    assert quantities.league_points(value) == words


def test_ratings_have_one_decimal_place() -> None:
    assert [quantities.rating(v) for v in (25.0, 4.0666, -3.44, -0.04)] == [
        "25.0",
        "4.1",
        "-3.4",
        "0.0",
    ]
    assert [quantities.rating_change(v) for v in (1.26, -0.44, 0.01)] == ["+1.3", "-0.4", "0.0"]


@pytest.mark.parametrize(
    ("language", "point"), [("en", "."), ("cs", ","), ("de", ","), ("ru", ",")]
)
def test_decimals_take_the_separator_of_the_language_in_use(language: str, point: str) -> None:
    with speaking(language):
        assert quantities.league_points(Fraction(3, 2)) == f"1{point}5"
        assert quantities.league_points(Fraction(3)) == "3"
        assert quantities.rating(-3.44) == f"-3{point}4"
        assert quantities.rating(-0.04) == f"0{point}0"
        assert quantities.rating_change(1.26) == f"+1{point}3"
        assert quantities.rating_change(0.01) == f"0{point}0"


def test_a_league_game_is_placed_by_league_season_and_division() -> None:
    assert quantities.season_place("Spring League", 2, 1) == "Spring League, season 2, division 1"
    assert quantities.season_path("spring", 2) == "/leagues/spring/seasons/2"


@pytest.mark.parametrize(
    ("language", "place"),
    [
        ("cs", "Spring League, sezóna 2, divize 1"),
        ("de", "Spring League, Saison 2, Division 1"),
        ("ru", "Spring League, сезон 2, дивизион 1"),
    ],
)
def test_the_place_is_said_in_the_readers_language_and_the_records_event_in_english(
    language: str, place: str
) -> None:
    with speaking(language):
        assert quantities.season_place("Spring League", 2, 1) == place
        assert quantities.season_event("Spring League", 2, 1) == (
            "Spring League, season 2, division 1"
        )


@pytest.mark.parametrize(
    ("text", "span"),
    [("36h", 36 * H), ("3d", 3 * D), ("1d12h", 36 * H), ("90m", 90 * M), ("45s", 45 * S)],
)
def test_durations_are_read(text: str, span: timedelta) -> None:
    assert quantities.parse_duration(text) == span


@pytest.mark.parametrize("text", ["", "3", "h", "1.5h", "3 days", "-2h", "1234567d"])
def test_a_duration_that_cannot_be_read_is_named(text: str) -> None:
    with pytest.raises(ValueError, match=r"is not a duration: write e\.g\. 36h"):
        quantities.parse_duration(text)
