"""`cafe say`, `cafe talk`, `cafe mute` / `unmute`, and the last three messages under
`cafe show`, at 80 columns."""

from __future__ import annotations

from client_support import Cafe, Player

from client.errors import ExitCode

NARROW = {"COLUMNS": "80"}


def test_say_then_talk_lists_the_messages_oldest_first(
    cafe: Cafe, ann: Player, bob: Player
) -> None:
    game = cafe.started_game(ann, bob)
    written = ann.run("say", str(game), "good", "luck,", "bob!", env=NARROW)
    assert written.exit_code == ExitCode.OK, written.output
    assert written.stdout.startswith(f"Written at the table of game {game} (message ")
    long = "a link: https://example.org/" + "x" * 120 + " and " + "word " * 40
    assert bob.run("say", str(game), "-", input=f"thanks\n{long}\n", env=NARROW).exit_code == 0
    shown = bob.run("talk", str(game), env=NARROW)
    assert shown.exit_code == ExitCode.OK, shown.output
    lines = shown.stdout.splitlines()
    assert lines[0].startswith(f"{ann.name} · ")
    assert lines[1] == "  good luck, bob!"
    assert lines[2].startswith(f"{bob.name} · ") and lines[3] == "  thanks"
    assert max(len(line) for line in lines) <= 80
    assert "".join(line.strip() for line in lines[4:]).startswith("a link: https://example.org/xxx")


def test_show_lists_the_last_three_messages(cafe: Cafe, ann: Player, bob: Player) -> None:
    game = cafe.started_game(ann, bob)
    for number in range(1, 6):
        assert ann.run("say", str(game), f"message {number}").exit_code == 0
    shown = bob.run("show", str(game), env=NARROW)
    assert shown.exit_code == ExitCode.OK, shown.output
    lines = shown.stdout.splitlines()
    heading = lines.index(f"At the table, the last 3 of 5 messages (all: cafe talk {game}):")
    assert [line for line in lines[heading + 1 :] if line.startswith("  ")] == [
        "  message 3",
        "  message 4",
        "  message 5",
    ]
    assert max(len(line) for line in lines) <= 80


def test_a_muted_player_is_left_out_until_unmuted(cafe: Cafe, ann: Player, bob: Player) -> None:
    game = cafe.started_game(ann, bob)
    assert ann.run("say", str(game), "hello").exit_code == 0
    muted = bob.run("mute", ann.name)
    assert muted.exit_code == ExitCode.OK, muted.output
    assert bob.run("talk", str(game)).stdout == f"No messages at the table of game {game} yet.\n"
    assert bob.run("mute").stdout == f"Muted: {ann.name}\n"
    heard = bob.run("unmute", ann.name)
    assert heard.stdout == f"You hear {ann.name} again.\nYou muted nobody.\n"
    assert "  hello" in bob.run("talk", str(game)).stdout


def test_refusals_are_one_line(cafe: Cafe, ann: Player, bob: Player) -> None:
    game = cafe.started_game(ann, bob)
    outsider = cafe.sign_up("cid")
    refused = outsider.run("say", str(game), "hi")
    assert refused.exit_code == ExitCode.ERROR
    assert refused.stderr.strip().startswith("cafe: only the players and invitees of game")
    too_long = ann.run("say", str(game), "x" * 501)
    assert too_long.exit_code == ExitCode.ERROR and "500" in too_long.stderr
    assert ann.run("mute", "nobody_is_called_this").exit_code == ExitCode.ERROR
