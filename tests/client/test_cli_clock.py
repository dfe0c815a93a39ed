"""Clocks in `cafe`: the time control of `cafe new`, `cafe vacation`, and deadlines in words
and in the player's zone (`client.timeview`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from client_support import Player

from cafe.i18n import speaking
from client.errors import ExitCode
from client.timeview import deadline_text, local, time_left
from server.mail import times

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("left", "words"),
    [
        (timedelta(days=2, hours=4), "2 days 4 hours left"),
        (timedelta(days=3), "3 days left"),
        (timedelta(days=1, minutes=5), "1 day left"),
        (timedelta(hours=5, minutes=12), "5 hours 12 minutes left"),
        (timedelta(hours=1), "1 hour left"),
        (timedelta(minutes=23), "23 minutes left"),
        (timedelta(seconds=20), "less than a minute left"),
        (timedelta(days=2, hours=23, minutes=59, seconds=30), "2 days 23 hours left"),  # down
        (timedelta(hours=36), "1 day 12 hours left"),
        (timedelta(0), "time is up"),
        (timedelta(hours=-2), "time is up"),
    ],
)
def test_time_left_in_words(left, words):
    assert time_left(T0 + left, T0) == words


def test_a_deadline_in_the_players_zone_and_standing_out_when_close():
    prague = ZoneInfo("Europe/Prague")
    assert local(T0, prague) == "Mon 2 Mar 10:00 CET"
    far = (T0 + timedelta(days=2)).isoformat()
    assert deadline_text(far, prague, now=T0) == "2 days left (Wed 4 Mar 10:00 CET)"
    near = (T0 + timedelta(minutes=23)).isoformat()
    assert deadline_text(near, prague, now=T0) == "! 23 minutes left (Mon 2 Mar 10:23 CET)"
    assert deadline_text(T0.isoformat(), prague, now=T0 + timedelta(hours=1)) == (
        "! time is up (Mon 2 Mar 10:00 CET)"
    )
    assert deadline_text(None, prague, now=T0) == "none"


@pytest.mark.parametrize(
    ("language", "written", "in_an_email"),
    [
        ("en", "Mon 2 Mar 10:00 CET", "Mon, 2 Mar 2026, 10:00 CET"),
        ("cs", "po 2. 3. 10:00 SEČ", "po 2. 3. 2026 10:00 SEČ"),
        ("de", "Mo., 2. März 10:00 MEZ", "Mo., 2. März 2026, 10:00 MEZ"),
        ("ru", "пн, 2 мар. 10:00 CET", "пн, 2 мар. 2026\N{NARROW NO-BREAK SPACE}г., 10:00 CET"),
    ],
)
def test_a_moment_is_written_as_the_emails_write_it_but_for_the_year(
    language: str, written: str, in_an_email: str
) -> None:
    """CLDR's formats in the run's language, through the one place the emails and pages
    write theirs (`cafe.i18n.moment`), the zone's short name in that language too."""
    with speaking(language):
        assert local(T0, ZoneInfo("Europe/Prague")) == written
        assert times.local(T0, "Europe/Prague") == in_an_email


def test_new_chooses_the_clock(ann: Player) -> None:
    timed = ann.run("new", "--days-per-turn", "5", "--timeout", "resign")
    assert timed.exit_code == ExitCode.OK, timed.output
    assert ", 5 days a turn, resign on time-out." in timed.stdout.splitlines()[0]
    game_id = timed.stdout.split()[1]
    assert ann.state(int(game_id))["clock"] == {
        "days_per_turn": 5,
        "timeout": "resign",
        "max_timeouts": 2,
        "vacation": True,
    }
    casual = ann.run("new", "--no-clock")
    assert casual.exit_code == ExitCode.OK, casual.output
    assert casual.stdout.splitlines()[0].endswith(", no variants, no clock.")
    assert ann.state(int(casual.stdout.split()[1]))["clock"] is None


def test_new_refuses_a_clock_and_no_clock(ann: Player) -> None:
    both = ann.run("new", "--no-clock", "--days-per-turn", "2")
    assert both.exit_code == ExitCode.USAGE
    assert (
        both.stderr == "cafe: --no-clock leaves no deadline: drop --days-per-turn and --timeout\n"
    )
    assert ann.run("new", "--days-per-turn", "31").exit_code == ExitCode.USAGE


def test_vacation_show_start_and_end(ann: Player) -> None:
    shown = ann.run("vacation")
    assert shown.exit_code == ExitCode.OK, shown.output
    lines = shown.stdout.splitlines()
    assert lines[:2] == [
        "Vacation bank: 14 days.",
        "Not on vacation; take some days: cafe vacation start DAYS [--from DATE]",
    ]
    started = ann.run("vacation", "start", "3")
    assert started.exit_code == ExitCode.OK, started.output
    assert started.stdout.splitlines()[:2] == [
        "Vacation declared: 3 days.",
        "Vacation bank: 11 days.",
    ]
    assert started.stdout.splitlines()[2].startswith("Away until ")
    again = ann.run("vacation", "start", "1")
    assert again.exit_code == ExitCode.ERROR
    assert again.stderr.startswith("cafe: you have declared a vacation from ")
    ended = ann.run("vacation", "end")
    assert ended.exit_code == ExitCode.OK, ended.output
    assert ended.stdout.splitlines()[:2] == [
        "Your vacation is over: welcome back.",
        "Vacation bank: 13 days 23 hours.",
    ]


def test_vacation_from_a_later_date_in_the_players_zone(ann: Player) -> None:
    assert ann.run("prefs", "timezone=Europe/Prague").exit_code == ExitCode.OK
    later = ann.run("vacation", "start", "2", "--from", "2099-07-01")
    assert later.exit_code == ExitCode.OK, later.output
    assert later.stdout.splitlines()[2].startswith(
        "Away from Wed 1 Jul 00:00 CEST until Fri 3 Jul 00:00 CEST"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["start"], ExitCode.USAGE, "say how many days: cafe vacation start DAYS [--from DATE]"),
        (["end", "3"], ExitCode.USAGE, "`cafe vacation end` takes no days or --from"),
        (["start", "15"], ExitCode.ERROR, "your vacation bank holds 14 days, not enough for 15"),
        (
            ["start", "2", "--from", "soon"],
            ExitCode.USAGE,
            "--from 'soon': write a date like 2027-07-01 or 2027-07-01T18:00",
        ),
        (["end"], ExitCode.ERROR, "you have declared no vacation; see GET /api/me/vacation"),
    ],
)
def test_vacation_refusals(ann: Player, args, code, message) -> None:
    result = ann.run("vacation", *args)
    assert result.exit_code == code
    assert result.stderr == f"cafe: {message}\n"


def test_games_shows_the_deadline_in_the_players_zone(ann: Player, bob: Player, game: int) -> None:
    assert ann.run("prefs", "timezone=America/New_York").exit_code == ExitCode.OK
    listed = ann.run("games")
    assert listed.exit_code == ExitCode.OK, listed.output
    row = next(line for line in listed.stdout.splitlines() if f" {game} " in f" {line} ")
    assert row.endswith(("EST", "EDT")) and " 2 days 23 hours  " in row  # rounded down
