"""The games of a league season (docs/league.md, "Divisions" and "Schedule"), as pure functions.

A division of N players, in games of g (2, 3 or 4) players, plays R games per player,
R = ⌈(N − 1) / (g − 1)⌉ by default. Where N·R is not a multiple of g, the fewest possible
games have g − 1 players. The schedule is a function of (players, g, R, season seed) only,
so anyone holding the published seed can recompute it with this module:

* the names are sorted by code point first, so the order they are given in does not matter;
* all randomness is drawn from the seed's SHA-256 stream for the label ``b"schedule"``, the
  construction of ``cafe.fairbag`` (blocks ``SHA-256(seed ‖ label ‖ counter)``, 4-byte
  big-endian words, rejection below ``2³² − (2³² mod n)``);
* for g = 2 the games are q complete round robins plus one r-regular circulant round
  (R = q·(N − 1) + r) over a seeded shuffle of the names: with the default R every pair
  meets exactly once;
* for g = 3 and 4 a greedy pass fills the games (always taking players with the most games
  left, among them those who met the game's players least), then random swaps of two
  players between two games that do not make the pairs less even (sum of squared meeting
  counts) run until every two players meet ⌊λ⌋ or ⌈λ⌉ times, or a step budget is spent;
  an attempt whose meeting counts differ by more than 2 is dropped and the next attempt
  continues the same stream.

The games come out with their players sorted by name and the games sorted by those tuples.
Seats inside a game are decided later from each game's own seed.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from math import ceil

from cafe.fairbag import commitment

GAME_SIZES = (2, 3, 4)
SCHEDULE_LABEL = b"schedule"
MIN_DIVISION = 4  # no division smaller than this unless it is the only one
_WORD = 1 << 32
_WORDS = struct.Struct(">8I")  # a SHA-256 block as eight big-endian words
_ATTEMPTS = 50
_STEPS = 100  # swap proposals per attempt, at most, per place (N·R places)
_PATIENCE = 20  # proposals per place without a gain after which a spread of 2 will do


def division_seed(seed: bytes, division: int) -> bytes:
    """The seed of division `division`'s schedule, derived from the season's seed."""
    return hashlib.sha256(seed + b"division" + str(division).encode()).digest()


def default_rounds(players: int, game_size: int) -> int:
    """R = ⌈(N − 1) / (g − 1)⌉: the fewest games in which one could meet every other member."""
    _check_size(game_size)
    if players < 1:
        raise ValueError(f"a division has at least one player, not {players}")
    return ceil((players - 1) / (game_size - 1))


def seed_commitment(seed: bytes) -> str:
    """The public commitment to a season seed: its SHA-256 hex digest (as for a game's)."""
    return commitment(seed)


def division_sizes(count: int, division_size: int) -> list[int]:
    """How many players go in each division, top division first.

    D = ⌈count / division_size⌉ divisions, as equal as possible (sizes differ by at most one,
    the larger ones first); while there is more than one division and the smallest would have
    fewer than 4 players, one division fewer (so a division may exceed ``division_size``).
    """
    if count < 1:
        raise ValueError(f"divisions need at least one player, not {count}")
    if division_size < 1:
        raise ValueError(f"a division size is at least 1, not {division_size}")
    divisions = ceil(count / division_size)
    while divisions > 1 and count // divisions < MIN_DIVISION:
        divisions -= 1
    small, extra = divmod(count, divisions)
    return [small + 1] * extra + [small] * (divisions - extra)


def schedule(
    players: Sequence[str], game_size: int, rounds: int | None = None, *, seed: bytes
) -> list[tuple[str, ...]]:
    """The games of one division: each a tuple of names, sorted; the list sorted.

    Every player plays exactly ``rounds`` games (default ``default_rounds``), nobody twice
    in one game, games have g players and the fewest possible g − 1, and the numbers of
    games any two players share differ by at most 2 across all pairs (for g = 2: a round
    robin). Raises ValueError for duplicate names, N < g, g outside 2–4, rounds < 1, or
    a count of slots N·R that games of g and g − 1 players cannot hold.
    """
    _check_size(game_size)
    names = sorted(players)
    n = len(names)
    if len(set(names)) != n:
        raise ValueError("a player is listed twice in the division")
    if n < game_size:
        raise ValueError(f"{n} players cannot fill a game of {game_size}")
    if rounds is None:
        rounds = default_rounds(n, game_size)
    if rounds < 1:
        raise ValueError(f"every player plays at least one game, not {rounds}")
    sizes = game_sizes(n, game_size, rounds)
    draws = _Draws(seed, SCHEDULE_LABEL)
    spread = _round_robin if game_size == 2 else _spread
    games = spread(n, rounds, sizes, draws)
    return sorted(tuple(names[p] for p in sorted(game)) for game in games)


def game_sizes(players: int, game_size: int, rounds: int) -> list[int]:
    """The sizes of a division's games, full ones first: the fewest games of g − 1 players."""
    slots = players * rounds
    games = ceil(slots / game_size)
    short = games * game_size - slots
    if short and game_size == 2:
        raise ValueError(
            f"{players} players × {rounds} games is odd: two-player games need an even count"
        )
    if short > games:
        raise ValueError(
            f"{players} players × {rounds} games cannot be cut into games of "
            f"{game_size} and {game_size - 1} players; choose another number of rounds"
        )
    return [game_size] * (games - short) + [game_size - 1] * short


def pair_counts(games: Sequence[Sequence[str]]) -> dict[tuple[str, str], int]:
    """How many games each two players (sorted pair of names) share; unmet pairs absent."""
    counts: dict[tuple[str, str], int] = {}
    for game in games:
        members = sorted(game)
        for i, first in enumerate(members):
            for second in members[i + 1 :]:
                counts[first, second] = counts.get((first, second), 0) + 1
    return counts


def _check_size(game_size: int) -> None:
    if game_size not in GAME_SIZES:
        raise ValueError(f"a league game has 2, 3 or 4 players, not {game_size}")


class _Draws:
    """Uniform numbers from the SHA-256 stream of ``cafe.fairbag`` for one seed and label."""

    def __init__(self, seed: bytes, label: bytes) -> None:
        self._words = self._stream(seed + label)

    @staticmethod
    def _stream(prefix: bytes) -> Iterator[int]:
        counter = 0
        while True:
            yield from _WORDS.unpack(hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest())
            counter += 1

    def below(self, n: int) -> int:
        """A number in 0 … n − 1."""
        limit = _WORD - _WORD % n
        while True:
            word = next(self._words)
            if word < limit:
                return word % n

    def shuffle(self, items: list[int]) -> None:
        """Fisher–Yates in place, as ``cafe.fairbag.shuffled``."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def _round_robin(n: int, rounds: int, sizes: list[int], draws: _Draws) -> list[list[int]]:
    """Two-player games (``sizes`` all 2): q complete round robins plus an r-regular circulant
    over a seeded shuffle, R = q·(N − 1) + r."""
    complete, rest = divmod(rounds, n - 1)
    games = [[a, b] for _ in range(complete) for a in range(n) for b in range(a + 1, n)]
    if rest:
        order = list(range(n))
        draws.shuffle(order)
        for step in range(1, rest // 2 + 1):
            games += [[order[i], order[(i + step) % n]] for i in range(n)]
        if rest % 2:  # n is even here (n·rest is even): the diameters
            games += [[order[i], order[i + n // 2]] for i in range(n // 2)]
    return games


def _spread(n: int, rounds: int, sizes: list[int], draws: _Draws) -> list[list[int]]:
    """Games of 3 or 4 players whose pair meetings differ by at most 2 (ideally 1)."""
    total = sum(k * (k - 1) // 2 for k in sizes)
    pairs = n * (n - 1) // 2
    low, high = divmod(total, pairs)
    best_possible = (pairs - high) * low * low + high * (low + 1) ** 2
    for _ in range(_ATTEMPTS):
        games, counts = _greedy(n, rounds, sizes, draws)
        _improve(games, counts, best_possible, draws)
        if _spread_of(counts) <= 2:
            return games
    raise RuntimeError(f"no even schedule found for {n} players in games of {sizes[0]}")


def _greedy(
    n: int, rounds: int, sizes: list[int], draws: _Draws
) -> tuple[list[list[int]], list[list[int]]]:
    """Fill the games in turn: most games left first, then fewest meetings, then by lot.

    Taking players with the most games left always leaves a completable schedule (Ryser's
    argument for 0–1 matrices with given row and column sums).
    """
    left = [rounds] * n
    counts = [[0] * n for _ in range(n)]
    games = []
    for size in sizes:
        game: list[int] = []
        for _ in range(size):
            free = [p for p in range(n) if p not in game and left[p]]
            most = max(left[p] for p in free)
            level = [p for p in free if left[p] == most]
            cost = {p: sum(counts[p][q] for q in game) for p in level}
            fewest = min(cost.values())
            ties = [p for p in level if cost[p] == fewest]
            chosen = ties[draws.below(len(ties))]
            for q in game:
                counts[chosen][q] += 1
                counts[q][chosen] += 1
            game.append(chosen)
            left[chosen] -= 1
        games.append(game)
    return games, counts


def _improve(
    games: list[list[int]], counts: list[list[int]], best_possible: int, draws: _Draws
) -> None:
    """Swap players between games while the sum of squared meetings does not grow.

    Each proposal draws two of the N·R places (game, position) at once; it is skipped if
    both are in one game or a player would meet themselves. Stops when the sum reaches
    ``best_possible`` (every pair meets ⌊λ⌋ or ⌈λ⌉ times), when ``_PATIENCE`` proposals per
    place in a row gained nothing and the meetings differ by at most 2, or after ``_STEPS``
    proposals per place.
    """
    places = [(game, i) for game in games for i in range(len(game))]
    many = len(places)
    cost = sum(c * c for row in counts for c in row) // 2
    since_gain = 0
    for _ in range(_STEPS * many):
        if cost == best_possible:
            return
        since_gain += 1
        if since_gain > _PATIENCE * many and _spread_of(counts) <= 2:
            return
        first, i = places[(u := draws.below(many * many)) // many]
        second, j = places[u % many]
        a, b = first[i], second[j]
        if first is second or a in second or b in first:
            continue
        delta = _swap_delta(counts, first, second, a, b)
        if delta <= 0:
            _apply(counts, first, a, -1)
            _apply(counts, second, b, -1)
            first[i], second[j] = b, a
            _apply(counts, first, b, +1)
            _apply(counts, second, a, +1)
            cost += delta
            if delta:
                since_gain = 0


def _swap_delta(
    counts: list[list[int]], first: list[int], second: list[int], a: int, b: int
) -> int:
    """The change of the sum of squared meetings if a (in first) and b (in second) swap.

    Players in both games keep meeting both a and b, so they change nothing.
    """
    delta = 0
    row_a, row_b = counts[a], counts[b]
    for q in first:
        if q != a and q not in second:
            delta += 2 * (row_b[q] - row_a[q]) + 2
    for q in second:
        if q != b and q not in first:
            delta += 2 * (row_a[q] - row_b[q]) + 2
    return delta


def _apply(counts: list[list[int]], game: list[int], player: int, step: int) -> None:
    for q in game:
        if q != player:
            counts[player][q] += step
            counts[q][player] += step


def _spread_of(counts: list[list[int]]) -> int:
    values = [c for p, row in enumerate(counts) for c in row[p + 1 :]]
    return max(values) - min(values)
