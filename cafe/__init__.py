"""Café International: the rules engine (cafe/rulebook.md), standard library only, no I/O.

The engine's names load when first used (`from cafe import Game` imports `cafe.game`), so
that a module of the package that needs none of them imports alone: `cafe.i18n`, which
`cafe --help` reads for its words, must not cost it the engine.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Where each name of the engine is defined.
_HOMES = {
    "CafeError": "cafe.errors",
    "GameOverError": "cafe.errors",
    "IllegalTurnError": "cafe.errors",
    "InvalidPositionError": "cafe.errors",
    "NotationError": "cafe.errors",
    "Game": "cafe.game",
    "Hint": "cafe.game",
    "ChairRef": "cafe.notation",
    "Placement": "cafe.notation",
    "Turn": "cafe.notation",
    "TurnKind": "cafe.notation",
    "TableScore": "cafe.results",
    "TurnResult": "cafe.results",
    "Standing": "cafe.standings",
    "Options": "cafe.state",
}

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


def __getattr__(name: str) -> Any:
    """The engine's `name`, imported from its module the first time it is asked for."""
    if name not in _HOMES:
        raise AttributeError(f"module 'cafe' has no attribute {name!r}")
    value = getattr(import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
