"""Café International: the rules engine (cafe/rulebook.md), standard library only, no I/O."""

from cafe.errors import (
    CafeError,
    GameOverError,
    IllegalTurnError,
    InvalidPositionError,
    NotationError,
)
from cafe.game import Game, Hint
from cafe.notation import ChairRef, Placement, Turn, TurnKind
from cafe.results import TableScore, TurnResult
from cafe.standings import Standing
from cafe.state import Options

__all__ = [
    "CafeError",
    "ChairRef",
    "Game",
    "GameOverError",
    "Hint",
    "IllegalTurnError",
    "InvalidPositionError",
    "NotationError",
    "Options",
    "Placement",
    "Standing",
    "TableScore",
    "Turn",
    "TurnKind",
    "TurnResult",
]
