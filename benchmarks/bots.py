"""Bot benchmark: SamplingBot against GreedyBot, per level, in two- and four-player games.

Each game seats one SamplingBot among greedy bots, its seat rotating from game to game
(game ``n`` puts it on seat ``n mod players``, the deal from the seed ``bots-n``). A win
is first place alone after the end's penalties; a shared first place is counted apart.
The win rate is printed with its 95 % interval (Wilson's), beside greedy's share in a
game of equals (1 / players). Time per move is the CPU time of this process
(``time.process_time``) for the bot's moves, with the greedy bot's moves in the same games
as the baseline.

    nice -n 19 .venv/bin/python benchmarks/bots.py [--games 1000] [--levels 1 2 3] [--players 2 4]
        [--first 0]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from cafe import Game
from cafe.bots import LEVELS, Bot, GreedyBot, SamplingBot


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % interval of a rate of ``wins`` in ``games`` (Wilson's score interval)."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def match(
    level: int, players: int, games: int, first: int = 0
) -> tuple[int, int, list[float], list[float]]:
    """Wins, shared first places, the bot's and greedy's seconds per move, over the games
    numbered from `first`."""
    wins = shared = 0
    bot_times: list[float] = []
    greedy_times: list[float] = []
    greedy = GreedyBot()
    for number in range(first, first + games):
        game = Game.new([f"p{i}" for i in range(players)], seed=f"bots-{number}")
        seat = number % players
        bot: Bot = SamplingBot(level, seed=number)
        while not game.is_over:
            mover, times = (bot, bot_times) if game.to_move == seat else (greedy, greedy_times)
            start = time.process_time()
            turn = mover.choose(game)
            times.append(time.process_time() - start)
            game.play(turn)
        first = [s.seat for s in game.standings() if s.place == 1]
        wins += first == [seat]
        shared += seat in first and len(first) > 1
    return wins, shared, bot_times, greedy_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per level and table")
    parser.add_argument("--levels", type=int, nargs="+", default=sorted(LEVELS))
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument(
        "--first", type=int, default=0, help="the first game's number (to split a run)"
    )
    args = parser.parse_args()
    print(
        f"SamplingBot against GreedyBot, {args.games} games per line from game {args.first}, "
        "seats rotated"
    )
    for players in args.players:
        for level in args.levels:
            wins, shared, bot_times, greedy_times = match(level, players, args.games, args.first)
            low, high = wilson(wins, args.games)
            print(
                f"{players} players, level {level}: won {wins}/{args.games} = "
                f"{wins / args.games:.1%} (95 % interval {low:.1%}–{high:.1%}; "
                f"greedy's share {1 / players:.0%}), {shared} first places shared; "
                f"median {statistics.median(bot_times):.3f} s a move "
                f"(greedy {statistics.median(greedy_times) * 1e3:.2f} ms), "
                f"max {max(bot_times):.3f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
