"""Engine benchmark: legal-turn generation, greedy self-play, and game records.

Prints medians (the machines are noisy) and, as a baseline measured in the same run, the
cost of checking one turn with ``play`` on a copy of the game: ``legal_turns`` is reported
as a multiple of it. Times are the CPU time of this process (``time.process_time``), so
other work on the machine distorts them less than wall time. Targets from the engine
issue are printed beside each figure.

    .venv/bin/python benchmarks/engine.py [--positions 1000] [--games 30] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from cafe import Game
from cafe.bots import GreedyBot, RandomBot, play_out

PLAYERS = ["ann", "bob", "cid", "dan"]


def sample_positions(count: int, seed: int = 2026) -> list[Game]:
    """Positions from seeded random 4-player games, sampled evenly over whole games."""
    positions: list[Game] = []
    game_seed = seed
    while len(positions) < count * 3:
        game = Game.new(PLAYERS, seed=game_seed)
        bot = RandomBot(game_seed)
        while not game.is_over:
            positions.append(game.copy())
            game.play(bot.choose(game))
        game_seed += 1
    return random.Random(seed).sample(positions, count)


def timed(action: Callable[[], object]) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def legal_turns_figures(positions: list[Game]) -> tuple[list[float], list[float]]:
    """Per position: the time of ``legal_turns()`` and of one ``play`` check on a copy."""
    generation, one_check = [], []
    for game in positions:
        fresh = game.copy()  # no cached turns
        generation.append(timed(fresh.legal_turns))
        turn = fresh.legal_turns()[0]
        one_check.append(timed(lambda g=game, t=turn: g.copy().play(t)))
    return generation, one_check


def greedy_games_per_second(games: int, rounds: int) -> list[float]:
    rates = []
    for round_number in range(rounds):
        seeds = range(round_number * games, (round_number + 1) * games)
        elapsed = timed(
            lambda s=seeds: [play_out(Game.new(PLAYERS, seed=x), GreedyBot()) for x in s]
        )
        rates.append(games / elapsed)
    return rates


def record_round_trip(rounds: int) -> tuple[list[float], list[float], int]:
    game = play_out(Game.new(PLAYERS, seed="record"), GreedyBot())
    text = game.to_record()
    writes = [timed(game.to_record) for _ in range(rounds)]
    replays = [timed(lambda: Game.from_record(text)) for _ in range(rounds)]
    return writes, replays, len(game.history)


def verdict(ok: bool) -> str:
    return "meets target" if ok else "MISSES target"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    positions = sample_positions(args.positions)
    generation, one_check = legal_turns_figures(positions)
    median, p99 = statistics.median(generation) * 1e3, percentile(generation, 0.99) * 1e3
    check = statistics.median(one_check) * 1e3
    counts = [len(game.legal_turns()) for game in positions]
    print(f"(a) legal_turns() over {len(positions)} positions of random 4-player games")
    print(f"    turns per position: median {statistics.median(counts):.0f}, max {max(counts)}")
    print(f"    median {median:.3f} ms ({verdict(median <= 0.3)} 0.3 ms)")
    print(f"    p99    {p99:.3f} ms ({verdict(p99 <= 3.0)} 3 ms)")
    print(f"    baseline: one play() check on a copy, median {check:.3f} ms;")
    print(f"    legal_turns() median = {median / check:.1f}x one check")

    rates = greedy_games_per_second(args.games, args.rounds)
    rate = statistics.median(rates)
    print(f"(b) greedy 4-player games: median {rate:.1f} games/s over {args.rounds} rounds of "
          f"{args.games} ({verdict(rate >= 100)} 100/s)")  # fmt: skip

    writes, replays, turns = record_round_trip(args.rounds * 4)
    print(f"(c) record of a {turns}-turn greedy game: write median "
          f"{statistics.median(writes) * 1e3:.2f} ms, replay median "
          f"{statistics.median(replays) * 1e3:.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
