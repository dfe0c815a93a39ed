"""Bots that choose a turn for the player to move: for tests, timeouts and practice games."""

from __future__ import annotations

import random
from typing import Protocol

from cafe.game import Game
from cafe.notation import Turn


class Bot(Protocol):
    def choose(self, game: Game) -> Turn: ...


class RandomBot:
    """Plays a uniformly random legal turn; reproducible from its seed."""

    def __init__(self, seed: int | str | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, game: Game) -> Turn:
        return self._random.choice(game.legal_turns())


class GreedyBot:
    """Plays the turn that scores most now; ties go to the first hint (order of its text)."""

    def choose(self, game: Game) -> Turn:
        return game.hints(1)[0].turn


def play_out(game: Game, bots: list[Bot] | Bot) -> Game:
    """Play the game to its end, ``bots`` by seat (or one bot for every seat)."""
    while not game.is_over:
        bot = bots[game.to_move] if isinstance(bots, list) else bots
        game.play(bot.choose(game))
    return game
