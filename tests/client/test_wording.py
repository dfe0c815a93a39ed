"""The words `cafe` prints: turns described per table, the server's hints made commands,
preference values, and tables that fit 100 columns."""

from __future__ import annotations

import pytest

from client.commands.account import _value
from client.errors import cli_wording
from client.output import table
from client.turnview import detail_lines, draw_line


def score(table: str, points: int, guests: int, tile: str, chair: int, **flags: bool) -> dict:
    return {
        "table": table,
        "points": points,
        "guests": guests,
        "tile": tile,
        "chair": chair,
        **flags,
    }


def test_a_seating_turn_lists_each_guest_with_its_tables() -> None:
    turn = {
        "turn": "USm@US1-US2 USf@DE2-US1",
        "tables": [
            score("US1", 6, 3, "USm", 18, single_nation=True),
            score("US2", 3, 3, "USm", 18),
            score("DE2", 0, 1, "USf", 15, single_nation=True),
            score("US1", 16, 4, "USf", 15, single_nation=True, birthday=True),
        ],
        "completed": ["US1"],
        "hand_limit": 4,
        "drawn": ["DEf"],
    }
    assert detail_lines(turn, mine=True) == [
        "  USm on #18  US1 +6 (3 guests, one nation ×2)   US2 +3 (3 guests)",
        "  USf on #15  DE2 0 (alone)   US1 +16 (4 guests, one nation ×2, birthday ×2)",
        "  completes US1: hand limit 4 (add noshrink to the turn to keep the old limit)",
    ]
    assert draw_line(turn) == "  drew DEf"


def test_a_turn_completing_two_tables_reports_the_limit_after_each() -> None:
    turn = {"turn": "ESm@ES1-IT1", "completed": ["ES1", "IT1"], "hand_limit": 3}
    assert detail_lines(turn, mine=True) == [
        "  completes ES1: hand limit 4 (add noshrink to the turn to keep the old limit)",
        "  completes IT1: hand limit 3 (add noshrink to the turn to keep the old limit)",
    ]
    kept = {**turn, "turn": "ESm@ES1-IT1 noshrink", "hand_limit": 5}
    assert detail_lines(kept, mine=True) == [
        "  completes ES1: hand limit stays 5 (noshrink)",
        "  completes IT1: hand limit stays 5 (noshrink)",
    ]


def test_bar_swap_and_coffee_klatsch_turns() -> None:
    assert detail_lines({"turn": "bar DEf", "points": -4, "stool": 7}, mine=True) == [
        "  bar stool 7: -4"
    ]
    out = {"turn": "bar DEf", "points": 0, "stool": 9, "eliminated": True}
    assert detail_lines(out, mine=True) == [
        "  bar stool 9: could not pay, so you are out of the game"
    ]
    assert detail_lines(out, mine=False)[0].endswith("so the player is out of the game")
    assert detail_lines({"turn": "swap DEf@DE1"}, mine=True) == [
        "  the joker goes to the hand: no points, no draw"
    ]
    klatsch = {"turn": "x", "tables": [{"table": "IT1", "points": 40, "guests": 4}]}
    assert detail_lines(klatsch, mine=True) == ["  coffee klatsch IT1 +40 (4 guests)"]
    assert draw_line({"drawn": []}) is None


def test_api_routes_in_server_messages_become_commands() -> None:
    assert cli_wording("there is no game 9; see GET /api/games") == (
        "there is no game 9; see `cafe games`"
    )
    assert cli_wording("it has a resignation; see GET /api/games/9/turns") == (
        "it has a resignation; see `cafe history 9`"
    )
    assert (
        cli_wording(
            "no valid sign-in code for this email; ask for a new one with POST /api/signin-codes"
        )
        == "no valid sign-in code for this email; have a new code mailed with `cafe login EMAIL`"
    )
    assert cli_wording("no player has the email a@b.c; register with POST /api/players") == (
        "no player has the email a@b.c; register with `cafe register NAME EMAIL`"
    )


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("on", True),
        ("False", False),
        ("null", None),
        ("30", 30),
        ("-2", -2),
        ("--2", "--2"),
        ("digest", "digest"),
    ],
)
def test_preference_values(raw: str, value: object) -> None:
    assert _value(raw) == value


def test_tables_align_and_fit_the_width() -> None:
    text = table(("id", "name"), [("7", "x" * 200), ("12", "ann")], right={0}, width=100)
    lines = text.splitlines()
    assert lines[0] == "id  name"
    assert lines[1].startswith(" 7  xxx") and len(lines[1]) == 100 and lines[1].endswith("…")
    assert lines[2] == "12  ann"
