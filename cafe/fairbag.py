"""The fair bag (rulebook §12): seat order and tile order derived from a secret seed.

The algorithm is specified in docs/formats.md ("Fair bag") so that anyone can reimplement it:

* the seed is bytes; a ``str`` seed means its UTF-8 bytes, an ``int`` its decimal digits;
* the commitment published at the deal is the SHA-256 hex digest of the seed;
* a *stream* for a label (``b"seats"``, ``b"bag"``) is the concatenation of
  ``SHA-256(seed ‖ label ‖ counter)`` for counter = 0, 1, 2 … as 8-byte big-endian;
* a number below ``n`` takes the next 4 bytes of the stream as a big-endian integer ``x``,
  rejects it while ``x ≥ 2³² − (2³² mod n)``, and returns ``x mod n``;
* a shuffle is Fisher–Yates: for ``i`` from ``len − 1`` down to 1, swap items ``i`` and
  ``j = below(i + 1)``;
* the seat order is the shuffle (stream ``seats``) of the player names sorted by code point;
  the bag is the shuffle (stream ``bag``) of ``cafe.tiles.ALL_TILES``; its first item is
  the top of the bag.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator, Sequence
from typing import TypeVar

from cafe.tiles import ALL_TILES

SEED_BYTES = 32
_WORD = 1 << 32

T = TypeVar("T")


def seed_bytes(seed: bytes | str | int | None) -> bytes:
    """Normalise a seed to bytes; ``None`` makes a fresh secret one."""
    if seed is None:
        return secrets.token_bytes(SEED_BYTES)
    if isinstance(seed, bytes):
        return seed
    if isinstance(seed, bool):
        raise TypeError("a seed is bytes, str or int, not bool")
    if isinstance(seed, int):
        return str(seed).encode("ascii")
    if isinstance(seed, str):
        return seed.encode("utf-8")
    raise TypeError(f"a seed is bytes, str or int, not {type(seed).__name__}")


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: its SHA-256 hex digest."""
    return hashlib.sha256(seed).hexdigest()


def _stream(seed: bytes, label: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(seed + label + counter.to_bytes(8, "big")).digest()
        for offset in range(0, len(block), 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def _below(words: Iterator[int], n: int) -> int:
    limit = _WORD - _WORD % n
    while True:
        word = next(words)
        if word < limit:
            return word % n


def shuffled(items: Sequence[T], seed: bytes, label: bytes) -> list[T]:
    """Fisher–Yates shuffle of ``items`` driven by the seed's stream for ``label``."""
    result = list(items)
    words = _stream(seed, label)
    for i in range(len(result) - 1, 0, -1):
        j = _below(words, i + 1)
        result[i], result[j] = result[j], result[i]
    return result


def seat_order(players: Sequence[str], seed: bytes) -> list[str]:
    """The players in seat order: the shuffle of their names sorted by code point."""
    return shuffled(sorted(players), seed, b"seats")


def bag_order(seed: bytes) -> list[str]:
    """All 100 tiles in bag order, top first."""
    return shuffled(ALL_TILES, seed, b"bag")
