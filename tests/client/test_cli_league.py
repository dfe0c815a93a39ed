"""`cafe league …`, `cafe rating` and `cafe new --rated` against the live service: each
command's success, its refusals (not the organiser, an unknown league, registration
closed), your own rows marked, and every line within the terminal's width."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
import requests
from client_support import Cafe, Player
from typer.testing import Result

from cafe.i18n import speaking
from client import leagueview as view
from client import output
from client.errors import ExitCode


def ok(result: Result) -> str:
    """The command's stdout, after checking it succeeded and kept within the tests' terminal
    (`COLUMNS=100`; every command at 80 columns: test_cli_widths)."""
    assert result.exit_code == ExitCode.OK, result.output
    assert all(len(line) <= 100 for line in result.stdout.splitlines()), result.stdout
    return result.stdout


def refused(result: Result, code: ExitCode = ExitCode.ERROR) -> str:
    """The one line on stderr of a refused command."""
    assert result.exit_code == code, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.output
    return result.stderr


def slug() -> str:
    return f"club-{uuid.uuid4().hex[:8]}"


def create(organiser: Player, league: str, *options: str) -> str:
    return ok(organiser.run("league", "create", league, *options))


def line_of(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if f" {name} " in f" {line} ")


@pytest.fixture
def members(cafe: Cafe, ann: Player, bob: Player) -> list[Player]:
    """Four players: ann organises, all four play."""
    return [ann, bob, cafe.sign_up("cid"), cafe.sign_up("dan")]


@pytest.fixture
def running(members: list[Player]) -> str:
    """A league of two-player games whose season 1 runs: one division of four, 6 games."""
    league = slug()
    create(members[0], league, "--name", "Tuesday Club", "--game-size", "2",
           "--division-size", "4")  # fmt: skip
    ok(members[0].run("league", "open", league))
    for player in members:
        ok(player.run("league", "join", league))
    ok(members[0].run("league", "start", league))
    return league


def season(cafe: Cafe, league: str, number: int = 1) -> dict[str, Any]:
    response = requests.get(f"{cafe.server.url}/api/leagues/{league}/seasons/{number}", timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def finish(cafe: Cafe, members: list[Player], game_id: int, loser: str) -> None:
    """End a two-player game: `loser` resigns."""
    token = next(p.token for p in members if p.name == loser)
    response = cafe.server.call("POST", f"/api/games/{game_id}/resign", token)
    assert response.status_code == 200, response.text


def games_of(cafe: Cafe, league: str) -> list[tuple[int, list[str]]]:
    """The season's games with their players (from the live service)."""
    divisions = season(cafe, league)["divisions"]
    ids = [game_id for division in divisions for game_id in division["games"]]
    found = []
    token = cafe.sign_up("spy").token
    for game_id in ids:
        state = cafe.server.call("GET", f"/api/games/{game_id}", token).json()
        found.append((game_id, state["players"]))
    return found


SUBCOMMANDS = ["list", "show", "create", "open", "join", "leave", "start", "invite",
               "standings", "schedule", "remove", "pause", "resume", "adjudicate",
               "log", "notify"]  # fmt: skip


def test_every_league_command_and_option_has_help(cafe: Cafe) -> None:
    listed = cafe.run("league", "--help")
    assert listed.exit_code == ExitCode.OK
    names = [line.split()[0] for line in listed.stdout.split("Commands:\n")[1].splitlines()]
    assert names == SUBCOMMANDS
    for command in [*(["league", name] for name in SUBCOMMANDS), ["rating"], ["new"]]:
        shown = cafe.run(*command, "--help")
        assert shown.exit_code == ExitCode.OK, command
        options = shown.stdout.split("Options:\n")[1]
        entries = re.findall(r"^  (-[^\n]*)$", options, re.MULTILINE)
        assert entries and all(re.match(r"-.*?\S {2,}\S", e) for e in entries), options


def test_create_show_and_list(cafe: Cafe, ann: Player, bob: Player) -> None:
    league = slug()
    made = create(ann, league, "--name", "Tuesday Club", "--game-size", "3",
                  "--division-size", "6", "--days-per-turn", "7", "--timeout", "resign",
                  "--coffee-klatsch")  # fmt: skip
    assert made.startswith(f"League {league} is created.\nTuesday Club ({league})")
    assert "games of 3 players · 7 days a turn, resign on time-out" in made
    assert "out at the first time-out" in made and "coffee klatsch" in made
    assert "divisions of about 6 (as equal as possible: sizes differ by at most one)" in made
    assert "2 up and 2 down each season" in made
    assert made.endswith(f"Open its first season: cafe league open {league}\n")
    shown = ok(bob.run("league", "show", league))
    assert f"organised by {ann.name}" in shown
    assert shown.endswith(f"No season yet; to open one: cafe league open {league}\n")
    # wide enough for every column whatever leagues other tests made before (theirs of the
    # longest names drop `size` and `entry` at 100 columns, as tests/client/test_cli_widths.py
    # checks at 80)
    wide = ann.run("league", "list", env={"COLUMNS": "240"})
    assert wide.exit_code == ExitCode.OK, wide.output
    listing = wide.stdout
    assert listing.splitlines()[0].split() == [
        "slug", "name", "organiser", "size", "entry", "season", "players"
    ]  # fmt: skip
    row = line_of(listing, league)
    assert row.startswith("→ ") and row.split()[-4:] == ["3", "open", "-", "0"]
    assert not line_of(ok(bob.run("league", "list")), league).startswith("→")


def test_create_refusals_are_the_servers_words(ann: Player) -> None:
    league = slug()
    create(ann, league)
    assert refused(ann.run("league", "create", league)) == (
        f"cafe: a league named {league!r} exists; choose another slug\n"
    )
    assert "`slug` must be 2 to 32 lowercase" in refused(ann.run("league", "create", "Bad Slug"))
    crowded = ann.run("league", "create", slug(), "--division-size", "4", "--promote", "3")
    assert refused(crowded) == "cafe: promote + relegate (5) is more than a division of 4 holds\n"
    too_big = ann.run("league", "create", slug(), "--game-size", "5")
    assert too_big.exit_code == ExitCode.USAGE and "'--game-size'" in too_big.stderr


def test_an_unknown_league_is_named(ann: Player) -> None:
    for command in ("show", "join", "leave", "start", "open", "standings", "schedule"):
        assert refused(ann.run("league", command, "no-such-league")) == (
            "cafe: there is no league 'no-such-league'; see `cafe league list`\n"
        ), command


def test_no_season_yet(ann: Player, bob: Player) -> None:
    league = slug()
    create(ann, league)
    hint = f"its organiser opens one with `cafe league open {league}`"
    assert hint in refused(bob.run("league", "join", league))
    assert hint in refused(ann.run("league", "start", league))
    assert hint in refused(bob.run("league", "standings", league))


def test_only_the_organiser_opens_and_starts(ann: Player, bob: Player) -> None:
    league = slug()
    create(ann, league, "--game-size", "2")
    assert refused(bob.run("league", "open", league)) == (
        f"cafe: only the organiser of {league} can open a season\n"
    )
    opened = ok(ann.run("league", "open", league))
    assert opened == (
        f"Season 1 of {league} is open for registration.\n"
        f"Players join with: cafe league join {league}\n"
        f"Start it when they are in: cafe league start {league}\n"
    )
    assert f"Join season 1: cafe league join {league}" in ok(bob.run("league", "show", league))
    assert ok(bob.run("league", "join", league)) == (
        f"You are registered for season 1 of {league}.\n"
        "1 player so far; your division and games come by email at the start.\n"
    )
    assert refused(bob.run("league", "join", league)) == (
        f"cafe: you are registered for season 1 of {league}\n"
    )
    assert refused(bob.run("league", "start", league)) == (
        f"cafe: only the organiser of {league} can start a season\n"
    )
    assert refused(ann.run("league", "start", league)) == (
        f"cafe: 1 registered for season 1 of {league}; a season needs at least 2 (the game size)\n"
    )
    assert "has not begun: 1 player registered so far" in refused(
        bob.run("league", "standings", league)
    )
    left = ok(bob.run("league", "leave", league))
    assert left == (
        f"You withdrew from season 1 of {league}.\nTo join again: cafe league join {league}\n"
    )
    assert refused(bob.run("league", "leave", league)) == (
        f"cafe: you are not registered for season 1 of {league}\n"
    )


def test_a_season_start_standings_schedule_and_registration_closed(
    cafe: Cafe, members: list[Player]
) -> None:
    ann, bob = members[0], members[1]
    league = slug()
    create(ann, league, "--name", "Tuesday Club", "--game-size", "2", "--division-size", "4")
    ok(ann.run("league", "open", league))
    for player in members:
        ok(player.run("league", "join", league))
    started = ok(ann.run("league", "start", league))
    commitment = season(cafe, league)["seed_commitment"]
    assert started == (
        f"Season 1 of {league} has started.\n"
        "4 players in 1 division of 4; 6 games begun with the league's clock.\n"
        "Schedule commitment (SHA-256 of the season's seed, revealed when it ends):\n"
        f"  {commitment}\n"
        f"The standings: cafe league standings {league}\n"
        f"The games:     cafe league schedule {league}\n"
    )
    assert refused(ann.run("league", "start", league)) == (
        f"cafe: season 1 of {league} is running\n"
    )
    late = cafe.sign_up("eve")
    assert refused(late.run("league", "join", league)) == (
        f"cafe: season 1 of {league} is running\n"
    )

    table = ok(bob.run("league", "standings", league)).splitlines()
    assert table[0] == f"Tuesday Club ({league}) · season 1 · running · 4 players"
    assert table[2] == "Division 1 · 4 players · 3 games each"
    assert table[3].split() == ["place", "player", "points", "score", "wins", "played"]
    assert len(table) == 8
    assert line_of("\n".join(table), bob.name).startswith("→ ")
    assert [line.startswith("→") for line in table[4:]].count(True) == 1
    assert line_of("\n".join(table), bob.name).split()[-4:] == ["0", "0", "0", "0/3"]

    games = games_of(cafe, league)
    first, players = games[0]
    finish(cafe, members, first, loser=players[0])
    plan = ok(bob.run("league", "schedule", league))
    lines = plan.splitlines()
    assert lines[3].split() == ["game", "status", "players", "and", "scores", "result"]
    finished_row = next(line for line in lines if line.lstrip("→ ").startswith(f"{first} "))
    assert f"won by {players[1]}" in finished_row and "finished" in finished_row
    assert re.search(rf"{players[1]} -?\d+ · {players[0]} -?\d+", finished_row)
    running_rows = [line for line in lines if " active " in line]
    assert len(running_rows) == 5
    waiting = r" to move, (3 days|2 days \d+ hours?) left$"
    assert all(re.search(waiting, line) for line in running_rows)
    mine = [line for line in lines[4:10] if line.startswith("→ ")]
    assert len(mine) == 3  # bob's three games, finished or not
    assert all(bob.name in line for line in mine)

    standings = ok(bob.run("league", "standings", league, "--division", "1"))
    winner = line_of(standings, players[1]).split()
    assert winner[winner.index(players[1]) + 1] == "1" and winner[-1] == "1/3"
    assert refused(bob.run("league", "standings", league, "--division", "2")) == (
        f"cafe: season 1 of {league} has no division 2\n"
    )
    assert refused(bob.run("league", "standings", league, "--season", "9")).startswith(
        f"cafe: league {league} has no season 9"
    )


def test_schedule_reads_running_games_from_one_listing(
    cafe: Cafe, members: list[Player], running: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths: list[str] = []
    send = requests.Session.request

    def counting(self: requests.Session, method: str, url: str, **kwargs: Any) -> Any:
        paths.append(f"{method} {url.split('/', 3)[3]}")
        return send(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", counting)
    ok(members[1].run("league", "schedule", running))
    assert not [path for path in paths if path.startswith("GET api/games/")], paths
    assert len(paths) == 3  # the league, the season, one listing of games


def test_leaving_a_running_season_resigns_your_games(
    cafe: Cafe, members: list[Player], running: str
) -> None:
    dan = members[3]
    asked = dan.run("league", "leave", running, input="n\n")
    assert asked.exit_code == 1 and "Your running games of it are resigned" in asked.stdout
    assert dan.name in season(cafe, running)["registered"]
    left = ok(dan.run("league", "leave", running, "--yes"))
    assert left == (
        f"You withdrew from season 1 of {running}.\n"
        "Your running games of it are resigned; your finished results stand.\n"
    )
    table = ok(members[0].run("league", "standings", running))
    lines = table.splitlines()
    assert lines[0].endswith(" · running · 3 players; 1 has left")
    assert lines[2] == "Division 1 · 3 players; 1 has left · 3 games each"
    assert lines[3].split()[-1] == "note" and lines[-1].split()[:2] == ["-", dan.name]
    assert lines[-1].split()[-1] == "withdrew"  # listed last, without a place
    plan = ok(dan.run("league", "schedule", running))
    dans = [line for line in plan.splitlines() if line.startswith("→ ")]
    assert len(dans) == 3 and all(" finished " in line for line in dans)
    assert all(f"won by {dan.name}" not in line for line in dans)


def test_a_finished_season_shows_its_final_table_and_the_next_opens(
    cafe: Cafe, members: list[Player], running: str
) -> None:
    ann, bob = members[0], members[1]
    for game_id, players in games_of(cafe, running):
        finish(cafe, members, game_id, loser=min(players))  # the first name loses
    table = ok(bob.run("league", "standings", running))
    assert " · season 1 · finished · 4 players" in table
    assert table.splitlines()[3].split()[-1] == "played"  # no note: one division, no moves
    plan = ok(bob.run("league", "schedule", running))
    assert plan.count("won by") == 6
    opened = ok(ann.run("league", "open", running))
    assert opened.startswith(
        f"Season 2 of {running} is open for registration.\nRegistered already: "
    )
    assert all(p.name in opened for p in members)
    shown = ok(bob.run("league", "standings", running))
    assert " · season 1 · finished" in shown  # the newest season that has begun
    registered = ok(bob.run("league", "standings", running, "--season", "2"))
    assert " · season 2 · registration · 4 players\nRegistered: " in registered


def test_invitations(cafe: Cafe, ann: Player, bob: Player) -> None:
    league = slug()
    made = create(ann, league, "--invitation-only")
    assert "by invitation" in made and "Invited: nobody yet" in made
    assert f"Invite players: cafe league invite {league} NAME…" in made
    ok(ann.run("league", "open", league))
    cid = cafe.sign_up("cid")
    assert refused(cid.run("league", "join", league)) == (
        f"cafe: {league} is by invitation; ask its organiser to invite you\n"
    )
    assert refused(bob.run("league", "invite", league, cid.name)) == (
        f"cafe: only the organiser of {league} can invite players\n"
    )
    assert refused(ann.run("league", "invite", league, "nobody-here")) == (
        "cafe: no player is named nobody-here\n"
    )
    invited = ok(ann.run("league", "invite", league, f"{bob.name},{cid.name}"))
    names = ", ".join(sorted([bob.name, cid.name]))
    assert invited.startswith(f"Invited to {league} now: {names}.")
    ok(cid.run("league", "join", league))
    assert "Invited: " in ok(bob.run("league", "show", league))
    open_league = slug()
    create(ann, open_league)
    assert refused(ann.run("league", "invite", open_league, bob.name)) == (
        f"cafe: {open_league} is open: anyone may register\n"
    )


def test_rating_list_and_profile(cafe: Cafe, members: list[Player], running: str) -> None:
    bob = members[1]
    for game_id, players in games_of(cafe, running):
        finish(cafe, members, game_id, loser=min(players))
    listing = ok(bob.run("rating", "--per-page", "200"))
    lines = listing.splitlines()
    assert lines[0].split() == ["rank", "player", "rating", "mu", "sigma", "games"]
    mine = line_of(listing, bob.name)
    assert mine.startswith("→ ") and mine.split()[-1] == "3"
    assert [line.startswith("→") for line in lines].count(True) == 1
    assert re.search(r"^Page 1 of 1 · \d+ rated players$", lines[-2], re.MULTILINE)
    rank, rating = mine.split()[1], mine.split()[3]
    elsewhere = ok(bob.run("rating", "--per-page", "1", "--page", "2" if rank == "1" else "1"))
    assert f"You: rank {rank}, rating {rating} · cafe rating --page {rank}\n" in elsewhere
    assert "You:" not in ok(bob.run("rating", "--per-page", "1", "--page", rank))
    newcomer = ok(cafe.sign_up("eve").run("rating"))
    assert "You are not rated yet" in newcomer
    profile = ok(members[0].run("rating", bob.name)).splitlines()
    assert re.fullmatch(
        rf"{bob.name} · rating -?[\d.]+ \(mu [\d.]+, sigma [\d.]+\) · 3 rated games", profile[0]
    )
    assert profile[1] == f"League {running} · Tuesday Club · season 1 · division 1"
    assert "Rating history (the last 3 of 3):" in profile
    assert "Recent games:" in profile
    short = ok(bob.run("rating", bob.name, "--history", "1"))
    assert "Rating history (the last 1 of 3):" in short
    unknown = refused(bob.run("rating", "nobody-at-all"))
    assert unknown == "cafe: there is no player named 'nobody-at-all'\n"
    too_far = refused(bob.run("rating", "--page", "100000"), ExitCode.USAGE)
    assert re.fullmatch(
        r"cafe: there (is 1 page|are \d+ pages) of 20; ask for (it|one of them)\n", too_far
    )
    anonymous = ok(cafe.run("rating", bob.name, env={"CAFE_SERVER": cafe.server.url}))
    assert anonymous.startswith(f"{bob.name} · rating ")  # anyone may read ratings


def test_an_unrated_player(cafe: Cafe, ann: Player) -> None:
    profile = ok(ann.run("rating", ann.name))
    assert profile == f"{ann.name} · not rated yet (no rated game finished)\n"


def test_new_rated(ann: Player) -> None:
    made = ann.run("new", "--rated")
    assert made.exit_code == ExitCode.OK, made.output
    assert made.stdout.splitlines()[0].endswith("autoplay on time-out, rated.")
    assert ann.state(int(made.stdout.split()[1]))["rated"] is True
    casual = ann.run("new").stdout
    assert ", rated" not in casual and ann.state(int(casual.split()[1]))["rated"] is False


def test_your_row_is_bold_on_a_terminal(
    members: list[Player], running: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(output, "stdout_is_terminal", lambda: True)
    bob = members[1]
    shown = bob.run("league", "standings", running).stdout
    mine = line_of(shown, bob.name)
    assert mine.startswith("\x1b[1m→ ") and mine.endswith("\x1b[0m")
    plain = bob.run("league", "standings", running, env={"NO_COLOR": "1"}).stdout
    assert "\x1b[" not in plain and line_of(plain, bob.name).startswith("→ ")


def test_the_standings_mark_who_left_how_time_outs_and_moves_within_80_columns() -> None:
    """`cafe league standings` of a finished division, read from an API answer: who left
    comes last without a place, marked how (the short words explained below), time-outs
    counted, the moves said as things stand; 24-character names still fit."""
    names = [f"{letter * 23}{n}" for n, letter in enumerate("abcdef")]
    row = {"points": 0, "score_sum": -10, "wins": 0, "played": 2, "timeouts": 0}
    standings = [
        {**row, "place": 1, "player": names[0], "points": 4.5, "withdrawn": False, "left": None},
        {**row, "place": 2, "player": names[1], "withdrawn": False, "left": None, "timeouts": 1},
        {**row, "place": 3, "player": names[2], "withdrawn": False, "left": None, "timeouts": 3},
        {**row, "place": None, "player": names[3], "withdrawn": True, "left": "withdrew"},
        {**row, "place": None, "player": names[4], "withdrawn": True, "left": "removed"},
        {**row, "place": None, "player": names[5], "withdrawn": True, "left": "removed_on_time",
         "timeouts": 4},
    ]  # fmt: skip
    division = {"number": 2, "rounds": 2, "standings": standings}
    moves = [
        {"player": names[0], "from_division": 2, "to_division": 1, "direction": "up"},
        {"player": names[2], "from_division": 2, "to_division": 3, "direction": "down"},
    ]
    text = view.standings_table(division, moves, names[1], color=False)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), text
    assert lines[0].split() == ["place", "player", "points", "score", "wins", "played", "note"]
    assert lines[1].split()[-2:] == ["↑", "1"]
    assert lines[2].startswith("→ ") and lines[2].endswith("  1 time-out")
    assert lines[3].endswith("  3 time-outs ↓ 3")
    assert [line.split()[0] for line in lines[4:7]] == ["-", "-", "-"]
    assert [line.split("2/2")[1].strip() for line in lines[4:7]] == [
        "withdrew",
        "removed",
        "removed on time",
    ]
    assert lines[7:] == [
        "removed: by the organiser; removed on time: from every game they had left",
        "↑ ↓ the moves as things stand; refilling can change them",
    ]
    assert "eliminated" not in text


def test_the_standings_say_why_each_member_plays_in_the_division() -> None:
    """In the API's words, which are the season page's (`server.league.reasons`); not in a
    first season, where everyone is placed by rating."""
    name = "x" * 24
    row = {"points": 0, "score_sum": 0, "wins": 0, "played": 0, "timeouts": 0,
           "withdrawn": False, "left": None}  # fmt: skip
    standings = [
        {**row, "place": 1, "player": name, "placed": "filled", "placed_from": 1,
         "placed_text": "stayed in division 1 to fill a place"},
        {**row, "place": 2, "player": "hal", "placed": "up", "placed_from": 2,
         "placed_text": "moved up from division 2"},
        {**row, "place": 3, "player": "ivy", "placed": "new", "placed_from": None,
         "placed_text": "new this season"},
    ]  # fmt: skip
    text = view.standings_table({"number": 1, "rounds": 2, "standings": standings}, None, None,
                                color=False)  # fmt: skip
    assert text.splitlines()[-4:] == [
        "Placed:",
        f"  {name}  stayed in division 1 to fill a place",
        f"  {'hal':<24}  moved up from division 2",
        f"  {'ivy':<24}  new this season",
    ]
    assert all(len(line) <= 80 for line in text.splitlines())
    first = [{**r, "placed": "rating", "placed_text": "placed by rating"} for r in standings]
    assert "Placed:" not in view.standings_table(
        {"number": 1, "rounds": 2, "standings": first}, None, None, color=False
    )


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "won by ann, bob"),
        ("cs", "vítězství: ann, bob"),
        ("de", "gewonnen von ann, bob"),
        ("ru", "победа: ann, bob"),
    ],
)
def test_a_shared_win_names_every_winner_in_a_form_that_fits_several(
    language: str, said: str
) -> None:
    """Czech and Russian verbs agree with their subject: "vyhrál ann, bob" would make one man
    of two winners, so the result is worded as a noun there."""
    standings = [
        {"player": "ann", "final": 40, "place": 1},
        {"player": "bob", "final": 40, "place": 1},
        {"player": "cy", "final": 31, "place": 3},
    ]
    game = {"status": "finished", "standings": standings, "players": ["ann", "bob", "cy"]}
    with speaking(language):
        _status, _players, result = view.game_cells(7, game, datetime.now(UTC))
    assert result == said
