"""A league game in `cafe` (issue 20 §6, §14, §15): `cafe show` and `cafe games` name its
league, season and division (with the season's page); once it is over `cafe show` gives the
final standings with the penalties and why it ended, `cafe history` says how a player left
(never "eliminated": that is the bar's rule), and the record's Event tag names the league —
all within 80 columns."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from client_support import Cafe, Player

from client.errors import ExitCode

NARROW = {"COLUMNS": "80"}


@pytest.fixture
def season(cafe: Cafe) -> tuple[str, list[Player], list[int]]:
    """A running season of four players in two-player games: its slug, players, games."""
    players = [cafe.sign_up(name) for name in ("ann", "bob", "cid", "dan")]
    league = f"club-{uuid.uuid4().hex[:8]}"
    organiser = players[0]
    made = organiser.run("league", "create", league, "--name", "Tuesday Club", "--game-size",
                         "2", "--division-size", "4")  # fmt: skip
    assert made.exit_code == ExitCode.OK, made.output
    assert organiser.run("league", "open", league).exit_code == ExitCode.OK
    for player in players:
        assert player.run("league", "join", league).exit_code == ExitCode.OK
    assert organiser.run("league", "start", league).exit_code == ExitCode.OK
    shown = cafe.server.call("GET", f"/api/leagues/{league}/seasons/1", organiser.token).json()
    return league, players, shown["divisions"][0]["games"]


def player_named(players: list[Player], name: str) -> Player:
    return next(player for player in players if player.name == name)


def fits(text: str) -> str:
    assert max(len(line) for line in text.splitlines()) <= 80, text
    return text


def test_show_and_games_name_the_league_season_and_division(
    cafe: Cafe, season: tuple[str, list[Player], list[int]]
) -> None:
    league, players, games = season
    state = players[0].state(games[0])
    me = player_named(players, state["players"][0])
    shown = fits(me.run("show", str(games[0]), env=NARROW).stdout)
    assert (
        f"League game: Tuesday Club, season 1, division 1 · "
        f"{cafe.server.url}/leagues/{league}/seasons/1"
    ) in shown.replace("\n", " ")
    listed = me.run("games", env=NARROW).stdout
    mine = [str(g) for g in games if me.name in players[0].state(g)["players"]]
    note = listed.split("League games ", 1)[1].split("\n▶", 1)[0].replace("\n", " ")
    ids, place = note.split(": ", 1)
    assert place == f"Tuesday Club, season 1, division 1 (cafe league standings {league})"
    assert sorted(ids.split(", ")) == sorted(mine)


def test_a_finished_league_game_shows_its_standings_why_it_ended_and_who_left(
    cafe: Cafe, season: tuple[str, list[Player], list[int]], tmp_path: Path
) -> None:
    _, players, games = season
    state = players[0].state(games[0])
    mover = player_named(players, state["to_move"])
    played = mover.run("move", str(games[0]), *mover.best_turn(games[0]).split())
    assert played.exit_code == ExitCode.OK, played.output
    quitter = player_named(players, players[0].state(games[0])["to_move"])
    winner = next(name for name in state["players"] if name != quitter.name)
    assert quitter.run("resign", str(games[0]), "--yes").exit_code == ExitCode.OK
    final = players[0].state(games[0])
    [line] = [s for s in final["standings"] if s["player"] == winner]
    shown = fits(quitter.run("show", str(games[0]), env=NARROW).stdout)
    standings = shown.split(" place  player ", 1)[1]  # the picture's final standings
    assert re.search(rf"^ +1 +{winner} +{line['score']} .* {line['penalty']} +{line['final']}$",
                     standings, re.M)  # fmt: skip
    said = shown.replace("\n", " ")
    assert (
        f"The game ended because {quitter.name} resigned, and only {winner} was still in the "
        f"game. Left before the end: {quitter.name} resigned."
    ) in said
    history = fits(quitter.run("history", str(games[0]), env=NARROW).stdout)
    assert history.splitlines()[-1] == f"  2. {quitter.name} resigned"
    assert "eliminated" not in history and f"{quitter.name}: " not in history
    record = tmp_path / "game.txt"
    record.write_text(quitter.run("record", str(games[0])).stdout)
    assert record.read_text().startswith('[Event "Tuesday Club, season 1, division 1"]\n')
    verified = quitter.run("verify", str(record))
    assert verified.exit_code == ExitCode.OK, verified.output
    assert "  Played in Tuesday Club, season 1, division 1." in verified.stdout


def test_history_says_a_player_withdrew_from_the_season(
    cafe: Cafe, season: tuple[str, list[Player], list[int]]
) -> None:
    league, players, games = season
    leaver = players[-1]
    assert leaver.run("league", "leave", league, "--yes").exit_code == ExitCode.OK
    theirs = [g for g in games if leaver.name in players[0].state(g)["players"]]
    history = fits(players[0].run("history", str(theirs[0]), env=NARROW).stdout)
    assert history.splitlines()[-1].endswith(f". {leaver.name} withdrew from the season")
    shown = players[0].run("show", str(theirs[0]), env=NARROW).stdout.replace("\n", " ")
    assert f"because {leaver.name} withdrew from the season, and only " in shown
    assert f"Left before the end: {leaver.name} withdrew from the season." in shown
