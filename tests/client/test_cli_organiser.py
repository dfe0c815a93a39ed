"""The organiser's tools from the terminal (issue 20 item 18) against the live service:
`cafe league pause`, `resume`, `remove`, `adjudicate` and `log`, each refused in the
server's words to anyone but the organiser; an adjudicated game's record verifies; and
`cafe league show` says how to open the next season once one is over. Every line within 80
columns, with the longest names there can be."""

from __future__ import annotations

import uuid

import pytest
from client_support import Cafe, Player
from test_cli_league import create, finish, games_of, ok, refused, season

from client.errors import ExitCode


@pytest.fixture
def members(cafe: Cafe, ann: Player, bob: Player) -> list[Player]:
    return [ann, bob, cafe.sign_up("cid"), cafe.sign_up("dan")]


@pytest.fixture
def league(members: list[Player]) -> str:
    """A league of two-player games organised by ann whose season 1 runs (6 games)."""
    slug = f"club-{uuid.uuid4().hex[:8]}"
    create(members[0], slug, "--game-size", "2", "--division-size", "4")
    ok(members[0].run("league", "open", slug))
    for player in members:
        ok(player.run("league", "join", slug))
    ok(members[0].run("league", "start", slug))
    return slug


def status_of(cafe: Cafe, player: Player, game_id: int) -> str:
    response = cafe.server.call("GET", f"/api/games/{game_id}", player.token)
    assert response.status_code == 200, response.text
    return response.json()["status"]


def test_pause_resume_remove_and_the_log(cafe: Cafe, members: list[Player], league: str) -> None:
    ann, bob, _, dan = members
    paused = ok(ann.run("league", "pause", league, "--reason", "winter holidays"))
    assert paused == (
        "Season 1 is paused: every clock of its games is stopped.\n"
        f"Resume it with: cafe league resume {league}\n"
    )
    assert season(cafe, league)["paused_since"]
    shown = ok(bob.run("league", "show", league))
    assert "Season 1 is paused by the organiser: every clock is stopped." in shown
    game_id = games_of(cafe, league)[0][0]
    state = bob.run("show", str(game_id))  # the board is wider than 80 columns
    assert state.exit_code == ExitCode.OK, state.output
    assert "clocks paused by the league's organiser: winter holidays" in state.stdout
    again = refused(ann.run("league", "pause", league, "--reason", "again"))
    assert "has been paused since" in again and "resume it first" in again
    assert "only the organiser of" in refused(bob.run("league", "resume", league))
    ok(ann.run("league", "resume", league, "--reason", "back at work"))
    assert season(cafe, league)["paused_since"] is None

    removed = ok(ann.run("league", "remove", league, dan.name, "--reason", "moved away"))
    assert removed.startswith(f"{dan.name} is removed from season 1.\nTheir running games")
    assert season(cafe, league)["withdrawn"] == [dan.name]
    assert "only the organiser of" in refused(bob.run("league", "remove", league, ann.name,
                                                      "--reason", "x"))  # fmt: skip
    assert "is not a member of" not in refused(
        ann.run("league", "remove", league, dan.name, "--reason", "x")
    )

    log = ok(bob.run("league", "log", league))
    lines = log.splitlines()
    assert lines[0].endswith(" · season 1 · the organiser's log")
    assert lines[1].endswith(f"  {ann.name}  paused every clock")
    assert lines[2] == "  why: winter holidays"
    assert lines[3].endswith(f"  {ann.name}  resumed the clocks")
    assert lines[5].endswith(f"  {ann.name}  removed {dan.name}")
    assert lines[6] == "  why: moved away"


def test_a_reason_is_required(ann: Player, league: str) -> None:
    missing = ann.run("league", "pause", league)
    assert missing.exit_code == ExitCode.USAGE and "--reason" in missing.stderr
    blank = refused(ann.run("league", "pause", league, "--reason", " "))
    assert "`reason` must be the reason, 1 to 500 characters on one line" in blank


def test_adjudicating_a_game_and_verifying_its_record(
    cafe: Cafe, members: list[Player], league: str, tmp_path
) -> None:
    ann, bob = members[0], members[1]
    game_id = games_of(cafe, league)[0][0]
    assert "only the organiser of" in refused(
        bob.run("league", "adjudicate", str(game_id), "--reason", "mine")
    )
    ended = ok(ann.run("league", "adjudicate", str(game_id), "--reason", "a bounced address"))
    assert ended.startswith(f"Game {game_id} is adjudicated: it ended with the standings")
    assert "  1. " in ended and f"cafe record {game_id}" in ended
    assert status_of(cafe, bob, game_id) == "finished"
    history = ok(bob.run("history", str(game_id)))
    assert history.splitlines()[-1].endswith(f"adjudicated by {ann.name}: a bounced address")
    fetched = bob.run("record", str(game_id))  # its Commitment tag is wider than 80 columns
    assert fetched.exit_code == ExitCode.OK, fetched.output
    record = fetched.stdout
    assert record.splitlines()[-1] == "-- adjudicated: a bounced address"
    saved = tmp_path / "game.txt"
    saved.write_text(record)
    verified = ok(bob.run("verify", str(saved)))
    assert "Ended by adjudication (a bounced address)" in " ".join(verified.split())
    again = refused(ann.run("league", "adjudicate", str(game_id), "--reason", "twice"))
    assert "only a running game is adjudicated" in again
    plain = cafe.started_game(ann, bob)
    assert "is not a league game" in refused(
        ann.run("league", "adjudicate", str(plain), "--reason", "x")
    )


def test_show_says_how_to_open_the_next_season(
    cafe: Cafe, members: list[Player], league: str
) -> None:
    ann, bob = members[0], members[1]
    for game_id, players in games_of(cafe, league):
        finish(cafe, members, game_id, loser=min(players))
    organiser = ok(ann.run("league", "show", league))
    assert (
        "Season 1 is over: its standings are final.\n"
        f"Open season 2 for registration: cafe league open {league}\n"
    ) in organiser
    member = ok(bob.run("league", "show", league))
    assert (
        f"Season 1 is over: its standings are final.\nIts organiser, {ann.name}, opens season 2 "
        f"with:\n  cafe league open {league}\n"
    ) in member
    assert "Nothing yet" in ok(bob.run("league", "log", league))


def test_long_names_stay_within_80_columns(cafe: Cafe) -> None:
    long = [cafe.sign_up(f"{letter * 17}x") for letter in "pqrs"]
    slug = f"l{uuid.uuid4().hex[:31]}"
    create(long[0], slug, "--name", "L" * 64, "--game-size", "2", "--division-size", "4")
    ok(long[0].run("league", "open", slug))
    for player in long:
        ok(player.run("league", "join", slug))
    ok(long[0].run("league", "start", slug))
    reason = "a reason long enough to wrap " * 16
    ok(long[0].run("league", "pause", slug, "--reason", reason))
    ok(long[1].run("league", "show", slug))
    ok(long[0].run("league", "resume", slug))
    ok(long[0].run("league", "remove", slug, long[3].name, "--reason", "x" * 400))
    game_id = games_of(cafe, slug)[0][0]
    ok(long[0].run("league", "adjudicate", str(game_id), "--reason", reason))
    shown = ok(long[1].run("league", "log", slug))  # ok() checks the width
    assert shown.count("why:") == 3
