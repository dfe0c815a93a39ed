"""Issue 14, the terminal: options after the command, a mistyped game number, planning while
waiting (`hint`, `--dry-run`), a bar turn that puts you out, the hand limit and the
birthday right in the hints, and a finished game refused once."""

from __future__ import annotations

from typing import Any

from client_support import Cafe, Player, to_move

from client.errors import ExitCode


def mover_and_other(players: list[Player], game: int) -> tuple[Player, Player, dict[str, Any]]:
    state = players[0].state(game)
    mover = to_move(players, state)
    return mover, next(p for p in players if p is not mover), state


def fetch(position: dict[str, Any], tile: str) -> str:
    """Take `tile` out of the bag (or out of a hand, which gets a bag tile instead)."""
    if tile in position["bag"]:
        position["bag"].remove(tile)
        return tile
    hand = next(h for h in position["hands"] if tile in h)
    spare = next(t for t in position["bag"] if t[:2] != tile[:2] and not t.startswith("J"))
    position["bag"].remove(spare)
    hand[hand.index(tile)] = spare
    return tile


def test_profile_works_after_the_command(players: list[Player], game: int) -> None:
    ann = players[0]
    after = ann.cafe.run("show", str(game), "--plain", "--profile", ann.name)
    before = ann.cafe.run("--profile", ann.name, "show", str(game), "--plain")
    assert after.exit_code == ExitCode.OK, after.output
    assert after.stdout == before.stdout
    assert ann.cafe.run("whoami", f"--profile={ann.name}").stdout.startswith(ann.name)


def test_a_word_for_the_game_number_is_named(players: list[Player], game: int) -> None:
    result = players[0].run("move", "abc", "USm@US1")
    assert result.exit_code == ExitCode.USAGE
    assert result.stderr.startswith("cafe: abc is not a game number")


def test_hint_and_dry_run_while_waiting_are_labelled(players: list[Player], game: int) -> None:
    mover, other, state = mover_and_other(players, game)
    hinted = other.run("hint", str(game), "-n", "2")
    assert hinted.exit_code == ExitCode.OK, hinted.output
    lines = hinted.stdout.splitlines()
    assert lines[0] == f"Not your turn yet — as if it were ({mover.name} is to move):"
    turn = other.best_turn(game)
    hand = state["hands"][state["players"].index(other.name)]
    # its first tile, without a joker's nation (Jf=TR@…)
    assert turn.removeprefix("bar ").split("@")[0].split("=")[0] in hand
    dry = other.run("move", str(game), turn, "--dry-run")
    assert dry.exit_code == ExitCode.OK, dry.output
    assert dry.stdout.startswith("Not your turn yet — as if it were")
    assert "Dry run: nothing was sent." in dry.stdout
    sent = other.run("move", str(game), turn)
    assert sent.exit_code == ExitCode.REFUSED
    assert "--dry-run plans one now" in sent.stderr


def test_hint_and_resign_on_a_finished_game_say_so_once(players: list[Player], game: int) -> None:
    mover, other, _ = mover_and_other(players, game)
    assert other.run("resign", str(game), "--yes").exit_code == ExitCode.OK
    for args in (("hint", str(game)), ("resign", str(game))):
        result = mover.run(*args)
        assert result.exit_code == ExitCode.ERROR
        assert result.stdout == ""  # no question asked
        assert result.stderr == f"cafe: game {game} is over\n"


def test_a_bar_turn_that_puts_you_out_asks_first(
    cafe: Cafe, players: list[Player], game: int
) -> None:
    mover, _, state = mover_and_other(players, game)
    seat = state["players"].index(mover.name)

    def broke(position: dict[str, Any]) -> None:
        position["bar"] = [fetch(position, t) for t in ("AFf", "AFm", "CNf", "CNm", "CUf")]
        position["scores"] = [0, 0]

    cafe.server.rearrange(game, broke)
    tile = next(t for t in mover.state(game)["hands"][seat] if not t.startswith("J"))
    declined = mover.run("move", str(game), "bar", tile, input="n\n")
    assert declined.exit_code == ExitCode.ERROR
    assert "puts you out of game" in declined.stdout
    assert mover.state(game)["version"] == state["version"]
    played = mover.run("move", str(game), "bar", tile, "--yes")
    assert played.exit_code == ExitCode.OK, played.output
    assert "you are out of the game" in played.stdout


def test_hints_offer_noshrink_when_a_turn_lowers_the_hand_limit(
    cafe: Cafe, players: list[Player], game: int
) -> None:
    mover, _, state = mover_and_other(players, game)
    seat = state["players"].index(mover.name)

    def three_germans(position: dict[str, Any]) -> None:
        """Three Germans at their table, a German gentleman in hand to complete it, and a
        French lady with a seat that completes nothing (FRf@DE1-FR1), whatever else the
        random hand holds: new guests sit beside seated ones, so it may hold no other."""
        chairs = {"12": "DEm", "13": "DEf", "15": "DEf"}
        position["chairs"] = {chair: fetch(position, tile) for chair, tile in chairs.items()}
        hand = position["hands"][seat]
        for index, tile in enumerate(("DEm", "FRf")):
            position["bag"].append(hand[index])
            hand[index] = fetch(position, tile)

    cafe.server.rearrange(game, three_germans)
    hinted = mover.run("hint", str(game), "-n", "50")
    assert hinted.exit_code == ExitCode.OK, hinted.output
    lines = hinted.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith(f"cafe move {game} DEm@DE2"))
    assert lines[at + 1] == (
        f"        lowers your hand limit 5 → 4; to keep 5: cafe move {game} DEm@DE2 noshrink"
    )
    plain = next(
        line.split(f"cafe move {game} ", 1)[1]
        for line, after in zip(lines, [*lines[1:], ""], strict=True)
        if line.startswith("  ")
        and "@" in line
        and "lowers" not in line + after
        and "swap" not in line
    )
    meaningless = mover.run("move", str(game), plain, "noshrink", "--dry-run")
    assert meaningless.exit_code == ExitCode.REFUSED
    assert "rule noshrink" in meaningless.stderr


def test_show_and_hint_say_how_to_name_the_birthday_nation(
    cafe: Cafe, players: list[Player]
) -> None:
    game = cafe.started_game(*players, birthday="10")
    mover, other, state = mover_and_other(players, game)
    seat = state["players"].index(mover.name)
    shown = mover.run("show", str(game), "--plain").stdout
    assert "the first to reach 10 points names its nation" in shown
    assert "birthday=XX" in shown

    def reached(position: dict[str, Any]) -> None:
        position["scores"][seat] = 12
        position["birthday_player"] = seat

    cafe.server.rearrange(game, reached)
    shown = mover.run("show", str(game), "--plain").stdout
    said = " ".join(shown.split())  # one sentence, broken where the terminal's width says
    assert "You reached 10 points first: name the birthday nation by adding birthday=XX" in said
    hinted = mover.run("hint", str(game), "-n", "1").stdout.splitlines()
    turn = hinted[1].split(f"cafe move {game} ", 1)[1]
    assert hinted[2] == f"        may name the birthday nation: cafe move {game} {turn} birthday=XX"
    assert "You reached 10 points first" not in other.run("show", str(game), "--plain").stdout
