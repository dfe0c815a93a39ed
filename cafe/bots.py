"""Bots that choose a turn for the player to move: for tests, timeouts and practice games."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Protocol

from cafe import fairbag, position
from cafe.game import Game
from cafe.movegen import as_turn, find_turns
from cafe.notation import Turn, TurnKind
from cafe.rules import apply_turn
from cafe.standings import hand_penalty
from cafe.state import State


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


@dataclass(frozen=True, slots=True)
class Level:
    """How hard a `SamplingBot` looks: the bags it samples, the best-scoring turns it
    weighs, and how many rounds (each player's turn once) it plays out after each."""

    samples: int
    candidates: int
    rounds: int


#: The strengths of `SamplingBot`, weakest first (figures in docs/bots.md).
LEVELS: dict[int, Level] = {
    1: Level(samples=4, candidates=8, rounds=1),
    2: Level(samples=8, candidates=16, rounds=2),
    3: Level(samples=16, candidates=24, rounds=2),
}

#: What being out of the game is worth in a play-out, below any score.
_OUT = -1000


class SamplingBot:
    """Weighs the best-scoring turns over sampled orders of the bag and plays the one that
    leaves it furthest ahead.

    Hands, board and bar are face up, so the only thing hidden from the player to move is
    the order of the bag, whose tiles are known: everything not in sight. For each of a
    few orders of those tiles, drawn from a generator seeded by the bot's seed and the
    visible position (never the real bag, which the bot sees only as a set of tiles), each
    candidate turn is played, then every player plays the greedy turn for a round or two;
    the candidate whose play-outs end with the best margin over the strongest opponent on
    average wins (rulebook §10's penalties counted where a play-out reaches the end). Every
    candidate meets the same orders, so their differences are not noise of the draw.

    ``level`` (1–3, `LEVELS`) trades time for strength. A position and a seed always give
    the same turn; ``seed=None`` draws a secret seed for the bot's life.
    """

    def __init__(self, level: int = 3, seed: int | str | bytes | None = None) -> None:
        if level not in LEVELS:
            raise ValueError(f"level is one of {', '.join(map(str, LEVELS))}, not {level!r}")
        self.level = level
        self._plan = LEVELS[level]
        self._seed = fairbag.seed_bytes(seed)

    def choose(self, game: Game) -> Turn:
        candidates = _candidates(game, self._plan.candidates)
        if len(candidates) == 1:
            return candidates[0]
        state = game._state  # the engine's own bot reads the engine's state
        sampler = random.Random(self._seed_for(state))
        unseen = sorted(state.bag)
        me = state.to_move
        plies = self._plan.rounds * len(state.in_game())
        totals = [0] * len(candidates)
        for _ in range(self._plan.samples):
            bag = sampler.sample(unseen, len(unseen))
            for index, turn in enumerate(candidates):
                trial = state.copy()
                trial.bag = list(bag)
                apply_turn(trial, turn)
                _play_greedy(trial, plies)
                totals[index] += _margin(trial, me)
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]

    def _seed_for(self, state: State) -> bytes:
        """The sampler's seed: the bot's seed and the position as the player to move sees
        it (the bag as a sorted set of tiles, so that its real order cannot leak in)."""
        seen = position.dump(state)
        seen["bag"] = sorted(seen["bag"])
        text = json.dumps(seen, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(self._seed + text.encode()).digest()


def _candidates(game: Game, count: int) -> list[Turn]:
    """The ``count`` best-scoring turns, and every turn to the bar and every joker swap
    besides: they score little now but may be worth most (a cheap stool, a joker back)."""
    best = [turn for turn, _ in game.best_turns(count)]
    chosen = set(best)
    others = [t for t in game.legal_turns() if t.kind is not TurnKind.SEAT and t not in chosen]
    return best + sorted(others, key=str)


def _play_greedy(state: State, plies: int) -> None:
    """Play up to ``plies`` turns of the greedy bot's kind (most points now; a ruinous bar
    turn last among equals), or to the end of the game."""
    for _ in range(plies):
        if state.over:
            return
        found = find_turns(state)
        value = state.next_stool_value
        if value is not None and state.scores[state.to_move] + value < 0:
            best = max(found, key=lambda f: (f[1], as_turn(f[0]).kind is not TurnKind.BAR))
        else:
            best = max(found, key=lambda f: f[1])
        apply_turn(state, as_turn(best[0]))


def _margin(state: State, seat: int) -> int:
    """How far ``seat`` is ahead of the best of the others (behind: negative); at the end
    with the penalties for tiles in hand, a player out of the game below every score."""
    worth = [
        _OUT if out else score + (hand_penalty(hand) if state.over else 0)
        for score, hand, out in zip(state.scores, state.hands, state.eliminated, strict=True)
    ]
    return worth[seat] - max(w for s, w in enumerate(worth) if s != seat)


def play_out(game: Game, bots: list[Bot] | Bot) -> Game:
    """Play the game to its end, ``bots`` by seat (or one bot for every seat)."""
    while not game.is_over:
        bot = bots[game.to_move] if isinstance(bots, list) else bots
        game.play(bot.choose(game))
    return game
