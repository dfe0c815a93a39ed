"""SamplingBot: it beats the greedy bot, never reads the real bag's order, and a position
and a seed always give it the same turn."""

from __future__ import annotations

import random

import pytest

from cafe import Game
from cafe.bots import GreedyBot, RandomBot, SamplingBot, play_out


def _positions() -> list[Game]:
    """Positions of a few seeded games: early, middle and late, two and four players."""
    found = []
    for seed, players in ((1, 2), (2, 4), (3, 3)):
        game = Game.new([f"p{i}" for i in range(players)], seed=seed)
        bot = RandomBot(seed)
        turns = 0
        while not game.is_over:
            if turns in (0, 9, 30):
                found.append(game.copy())
            game.play(bot.choose(game))
            turns += 1
    return found


def _with_bag(game: Game, bag: list[str]) -> Game:
    position = game.to_position()
    position["bag"] = bag
    return Game.from_position(position)


@pytest.mark.parametrize("index", [1, 2, 4, 8])
def test_the_same_turn_for_every_order_of_the_real_bag(index: int) -> None:
    game = _positions()[index]
    assert game.bag_size > 10, "the position must leave something to shuffle"
    bag = game.to_position()["bag"]
    shuffler = random.Random(index)
    chosen = {str(SamplingBot(2, seed="blind").choose(game))}
    for _ in range(20):
        order = shuffler.sample(bag, len(bag))
        chosen.add(str(SamplingBot(2, seed="blind").choose(_with_bag(game, order))))
    assert len(chosen) == 1, chosen


def test_a_position_and_a_seed_give_the_same_turn() -> None:
    for game in _positions():
        first = SamplingBot(1, seed=7).choose(game)
        again = SamplingBot(1, seed=7).choose(Game.from_position(game.to_position()))
        assert first == again
        bot = SamplingBot(1, seed=7)
        assert [bot.choose(game) for _ in range(3)] == [first] * 3


def test_the_seed_matters() -> None:
    """Different seeds sample different bags: over several positions some turn differs,
    so the seed is not ignored."""
    games = _positions()
    turns = {
        seed: [str(SamplingBot(1, seed=seed).choose(game)) for game in games] for seed in range(6)
    }
    assert len({tuple(t) for t in turns.values()}) > 1


def test_the_turn_is_legal_and_the_game_ends() -> None:
    game = play_out(Game.new(["ann", "bob", "cid"], seed="legal"), SamplingBot(1, seed=1))
    assert game.is_over


@pytest.mark.parametrize("level", [0, 4, "3"])
def test_an_unknown_level_is_refused(level: object) -> None:
    with pytest.raises(ValueError, match="level is one of 1, 2, 3"):
        SamplingBot(level, seed=1)  # type: ignore[arg-type]  # the wrong type on purpose


@pytest.mark.slow
def test_it_beats_greedy_in_most_of_100_games() -> None:
    """100 two-player games at level 1, the bot's seat rotating: it finishes first alone
    more often than not (the benchmark, benchmarks/bots.py, measures the levels)."""
    wins = 0
    for number in range(100):
        game = Game.new(["ann", "bob"], seed=f"versus-{number}")
        seat = number % 2
        bots = [GreedyBot(), GreedyBot()]
        bots[seat] = SamplingBot(1, seed=number)  # type: ignore[call-overload]
        play_out(game, list(bots))
        first = [s.seat for s in game.standings() if s.place == 1]
        wins += first == [seat]
    assert wins > 50, f"{wins} wins of 100"
