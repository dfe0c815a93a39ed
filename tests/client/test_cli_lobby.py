"""`cafe games`, `new`, `join` and `start`: success and each refusal."""

from __future__ import annotations

import re
from typing import Any

import pytest
import requests
from client_support import Cafe, Player

from client.errors import ExitCode


def test_new_game_says_how_others_join_and_how_to_start(ann: Player) -> None:
    result = ann.run("new", "--seats", "3", "--birthday", "30", "--coffee-klatsch")
    assert result.exit_code == ExitCode.OK, result.output
    lines = result.stdout.splitlines()
    assert " ".join(lines[:-2]).endswith(  # broken between words where the terminal ends
        "is open: 3 seats, coffee klatsch, birthday table at 30 points, "
        "3 days a turn, autoplay on time-out."
    )
    game_id = lines[0].split()[1]
    assert lines[-2:] == [
        f"Others join with: cafe join {game_id}",
        f"Start it when they are in: cafe start {game_id}",
    ]


def test_new_auto_start_starts_when_the_last_seat_is_taken(ann: Player, bob: Player) -> None:
    result = ann.run("new", "--auto-start")
    assert result.exit_code == ExitCode.OK, result.output
    game_id = result.stdout.split()[1]
    assert result.stdout.splitlines()[1:] == [
        f"Others join with: cafe join {game_id}",
        "It starts by itself when the last seat is taken.",
    ]
    joined = bob.run("join", game_id)
    assert joined.exit_code == ExitCode.OK, joined.output
    assert joined.stdout.endswith(
        f"The table is full and the game has started: cafe show {game_id}\n"
    )
    assert ann.state(int(game_id))["status"] == "active"


def test_new_with_invitations_sizes_the_table(cafe: Cafe, ann: Player) -> None:
    bob, cid = cafe.sign_up("bob"), cafe.sign_up("cid")
    result = ann.run("new", "--invite", f"{bob.name},{cid.name}")
    assert result.exit_code == ExitCode.OK, result.output
    assert ": 3 seats, no variants, 3 days a turn, autoplay on time-out." in result.stdout
    assert f"Invited (by email): {bob.name}, {cid.name}." in result.stdout
    game_id = result.stdout.split()[1]
    state = ann.state(int(game_id))
    assert state["invited"] == sorted([bob.name, cid.name])
    assert any(game_id in line for line in cafe.server.postbox(bob.email))


def test_new_refuses_more_invitations_than_seats(ann: Player) -> None:
    result = ann.run("new", "--seats", "2", "--invite", "x", "--invite", "y")
    assert result.exit_code == ExitCode.USAGE
    assert result.stderr == "cafe: 2 invited players do not fit into 1 free seat\n"


def test_new_with_an_unknown_invitee_is_the_servers_refusal(ann: Player) -> None:
    result = ann.run("new", "--invite", "nobody-at-all")
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr == "cafe: no player is named nobody-at-all\n"


def test_seats_outside_2_to_4_are_a_usage_error(ann: Player) -> None:
    result = ann.run("new", "--seats", "5")
    assert result.exit_code == ExitCode.USAGE
    assert "--seats" in result.stderr


def test_join_and_start(cafe: Cafe, ann: Player, bob: Player) -> None:
    opened = ann.run("new")
    game_id = opened.stdout.split()[1]
    joined = bob.run("join", game_id)
    assert joined.exit_code == ExitCode.OK, joined.output
    assert joined.stdout == (
        f"You joined game {game_id}: {ann.name}, {bob.name} (2 of 2 seats). "
        f"The table is full; {ann.name} starts it.\n"
    )
    refused = bob.run("start", game_id)
    assert refused.exit_code == ExitCode.ERROR
    assert refused.stderr == f"cafe: only the creator of game {game_id} can start it\n"
    started = ann.run("start", game_id)
    assert started.exit_code == ExitCode.OK, started.output
    state = ann.state(int(game_id))
    assert f"{state['to_move']} moves first." in started.stdout
    assert f"revealed when the game ends):\n  {state['commitment']}\n" in started.stdout
    # the seat order comes from a random seed: the creator is told only if they begin
    your_turn = f"Your turn: cafe show {game_id}\n"
    assert started.stdout.endswith(your_turn) == (state["to_move"] == ann.name)
    again = ann.run("start", game_id)
    assert again.exit_code == ExitCode.ERROR
    assert again.stderr == f"cafe: game {game_id} has already started\n"


def test_join_refusals(cafe: Cafe, ann: Player, bob: Player, game: int) -> None:
    cid = cafe.sign_up("cid")
    full = cid.run("join", str(game))
    assert full.exit_code == ExitCode.ERROR
    assert full.stderr == f"cafe: game {game} has already started\n"
    missing = cid.run("join", "999999")
    assert missing.exit_code == ExitCode.ERROR
    assert missing.stderr == "cafe: there is no game 999999; see `cafe games`\n"
    not_a_number = cid.run("join", "seven")
    assert not_a_number.exit_code == ExitCode.USAGE


def test_start_needs_a_second_player(ann: Player) -> None:
    game_id = ann.run("new").stdout.split()[1]
    result = ann.run("start", game_id)
    assert result.exit_code == ExitCode.ERROR
    assert result.stderr == "cafe: a game needs at least 2 players; wait for one to join\n"


def test_games_lists_yours_waiting_first_and_marked(
    cafe: Cafe, ann: Player, bob: Player, game: int
) -> None:
    mover, waiter = (ann, bob) if ann.state(game)["to_move"] == ann.name else (bob, ann)
    opened = waiter.run("new").stdout.split()[1]
    mine = mover.run("games")
    assert mine.exit_code == ExitCode.OK, mine.output
    lines = mine.stdout.splitlines()
    assert lines[0].split() == [
        "id", "status", "players", "to", "move", "score", "time", "left", "deadline"
    ]  # fmt: skip
    assert lines[1].split()[:3] == ["▶", str(game), "active"]
    assert re.search(r" you +0 +2 days 23 hours  \w{3} \d+ \w{3} \d\d:\d\d UTC$", lines[1])
    assert lines[-1] == f"▶ your turn in game {game}: cafe show {game}"
    theirs = waiter.run("games").stdout.splitlines()
    assert theirs[1].split()[:2] == [str(game), "active"]
    assert f" {mover.name}  " in theirs[1]
    assert theirs[2].split()[:2] == [opened, "open"]
    assert f"{waiter.name} (1 of 2)" in theirs[2]
    assert all(len(line) <= 100 for line in lines + theirs)


def test_games_when_there_are_none(ann: Player) -> None:
    result = ann.run("games")
    assert result.exit_code == ExitCode.OK
    assert result.stdout.startswith("You are in no games")


def test_games_lobby_lists_open_games_of_others(cafe: Cafe, ann: Player, bob: Player) -> None:
    opened = ann.run("new", "--seats", "3").stdout.split()[1]
    result = bob.run("games", "--lobby")
    assert result.exit_code == ExitCode.OK, result.output
    row = next(line for line in result.stdout.splitlines() if line.split()[0] == opened)
    assert row.split()[1:3] == ["1/3", ann.name]
    assert result.stdout.endswith("Join one: cafe join ID\n")
    mine = ann.run("games", "--lobby").stdout.splitlines()
    assert all(line.split()[0] != opened for line in mine if line.strip())


def test_the_lobby_leaves_out_games_for_others_and_private_ones(cafe: Cafe, ann: Player) -> None:
    bob, cid = cafe.sign_up("bob"), cafe.sign_up("cid")
    for_bob = ann.run("new", "--invite", bob.name).stdout.split()[1]
    private = ann.run("new", "--invite", bob.name, "--private")
    assert private.exit_code == ExitCode.OK, private.output
    assert " is open (private): 2 seats," in private.stdout
    hidden = private.stdout.split()[1]
    assert ann.state(int(hidden))["private"] is True
    seen_by = {p.name: p.run("games", "--lobby").stdout.split() for p in (bob, cid)}
    assert for_bob in seen_by[bob.name] and hidden in seen_by[bob.name]
    assert for_bob not in seen_by[cid.name] and hidden not in seen_by[cid.name]
    assert cid.run("show", hidden).exit_code == ExitCode.ERROR


def test_private_needs_invitations(ann: Player) -> None:
    result = ann.run("new", "--private")
    assert result.exit_code == ExitCode.USAGE
    assert result.stderr == "cafe: a private game needs --invite: only the invited may join it\n"


def test_finished_games_only_when_asked(players: list[Player], game: int) -> None:
    ann, bob = players
    assert bob.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    assert ann.run("games").stdout == (
        "You have no running games; your finished ones: cafe games --finished\n"
    )
    final = next(s for s in ann.state(game)["standings"] if s["player"] == ann.name)
    assert final["final"] < final["score"] == 0  # the penalty for the tiles left in hand
    listing = ann.run("games", "--finished").stdout.splitlines()
    row = listing[1].split()
    assert row[:2] == [str(game), "finished"]
    # nobody to move; ann's final score after penalties and her place; no deadline
    assert listing[0].split()[-5:] == ["score", "place", "time", "left", "deadline"]
    assert row[-5:] == ["-", str(final["final"]), "1", "-", "-"]


def test_games_lists_unanswered_invitations_and_points_to_finished(
    cafe: Cafe, ann: Player, bob: Player, game: int
) -> None:
    cid = cafe.sign_up("cid")
    opened = ann.run("new", "--invite", cid.name).stdout.split()[1]
    listing = cid.run("games")
    assert listing.exit_code == ExitCode.OK, listing.output
    assert listing.stdout.endswith(
        f"✉ invited to game {opened} with {ann.name} (1 of 2 seats taken): cafe join {opened}\n"
    )
    assert f"invited to game {opened}" not in bob.run("games").stdout
    assert cid.run("join", opened).exit_code == ExitCode.OK
    assert "invited" not in cid.run("games").stdout
    assert bob.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    assert ann.run("games").stdout.endswith("Your finished games: cafe games --finished\n")


def test_games_reads_the_scores_from_the_list_alone(
    cafe: Cafe, ann: Player, bob: Player, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(3):
        cafe.started_game(ann, bob)
    paths: list[str] = []
    send = requests.Session.request

    def counting(self: requests.Session, method: str, url: str, **kwargs: Any) -> Any:
        paths.append(f"{method} {url.split('/', 3)[3]}")
        return send(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", counting)
    result = ann.run("games")
    assert result.exit_code == ExitCode.OK, result.output
    assert len(result.stdout.splitlines()) >= 4
    assert not [path for path in paths if path.startswith("GET api/games/")], paths
