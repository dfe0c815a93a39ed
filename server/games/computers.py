"""Computer players (docs/bots.md): practice games and computer seats.

A computer player is an account of its own, `computer-1`, `computer-2`, … (names nobody
may register), with `Player.computer` set: it gets no email and nobody signs in as it.
A game lists its computer players in `GameRecord.computers` and the strength they play at
in `computer_level` (`cafe.bots.SamplingBot`'s level). `computer_turn` says the player to
move is one of them; every change of the game writes it (`computer_to_move`), and the worker
(`server.jobs.computers`) plays those turns as soon as they are due, with
the same compare-and-set on the version as any player's turn
(`server.games.computer_turns`).

Such games are never rated (a rating measures players against players) and never a
league's; a game of computers only is refused: someone must be playing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session, col, select

from cafe.bots import LEVELS
from cafe.i18n import lazy_gettext
from server.domain import Refused
from server.models import Player, TurnEmails

#: The names of computer players, `computer-1` …; nobody may register one.
NAME = re.compile(r"computer-[0-9]+", re.IGNORECASE)
#: The strength of computer players unless the game's creator chose one.
DEFAULT_LEVEL = max(LEVELS)


def is_computer_name(name: str) -> bool:
    """Whether `name` is a computer player's (reserved: no one may register it)."""
    return NAME.fullmatch(name) is not None


def check_seats(*, seats: int, computers: int, humans: int, rated: bool, league: bool) -> None:
    """Refuse computer seats where they are not allowed: a game of computers only (`humans`:
    the people already seated or invited), one whose players would not fit, a rated game or a
    league game."""
    if computers < 1:
        return
    if rated:
        raise Refused(
            "computer_rated",
            lazy_gettext("A game with computer players cannot be rated: ratings compare people."),
        )
    if league:
        raise Refused(
            "computer_league", lazy_gettext("A league game cannot have computer players.")
        )
    if computers >= seats:
        raise Refused(
            "computer_only",
            lazy_gettext(
                "A game needs at least one person: computer players cannot take every seat."
            ),
        )
    if computers + humans > seats:
        raise Refused(
            "computer_seats",
            lazy_gettext(
                "Too many players for the seats: computer players %(computers)s, people "
                "seated or invited %(humans)s, seats %(seats)s.",
                computers=computers,
                humans=humans,
                seats=seats,
            ),
        )


def accounts(session: Session, count: int) -> list[Player]:
    """The computer players `computer-1` … `computer-<count>`, made on first use."""
    names = [f"computer-{number}" for number in range(1, count + 1)]
    found = {p.name: p for p in session.exec(select(Player).where(col(Player.name).in_(names)))}
    for name in names:
        if name not in found:
            player = Player(
                name=name,
                email=f"{name}@computers.invalid",
                computer=True,
                turn_emails=TurnEmails.NONE,
                reminders=False,
            )
            session.add(player)
            found[name] = player
    session.flush()
    return [found[name] for name in names]


def computer_to_move(state: Mapping[str, Any] | None, computers: Sequence[str]) -> bool:
    """Whether the player to move in the running `state` is one of `computers`."""
    if not computers or state is None:
        return False
    return state["players"][state["to_move"]] in computers
