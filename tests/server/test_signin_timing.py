"""Who has an account, by timing: registering, asking for a sign-in email and exchanging a
code take as long for an address with an account as for one without (issue 21 §4).

Each endpoint is sent 200 requests of each kind, interleaved in a shuffled order after a
warm-up, so that the load of a shared machine falls on both kinds alike. Two checks, both
robust to that load's outliers: the 10 %-trimmed means are within 10 % of each other, and
a two-sided Mann–Whitney U test finds no difference at p < 0.001 (normal approximation
with the tie correction; 200 samples a side are far past where it is exact enough).
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from itertools import count

import pytest

#: Requests of each kind, and of each kind before measuring.
SAMPLES = 200
WARM_UP = 20
#: How far apart the trimmed means may be, and the p-value below which a difference is clear.
RATIO = 0.10
ALPHA = 0.001


@pytest.fixture
def sqlite_url(tmp_path):
    """A database file: a commit costs what it costs in service (the disk's flush)."""
    return f"sqlite:///{tmp_path / 'cafe.db'}"


def trimmed_mean(samples: list[float], cut: float = 0.1) -> float:
    """The mean of the samples without the lowest and highest `cut` of them."""
    ordered = sorted(samples)
    drop = int(len(ordered) * cut)
    return statistics.fmean(ordered[drop : len(ordered) - drop])


def mann_whitney_p(first: list[float], second: list[float]) -> float:
    """The two-sided p-value of the Mann–Whitney U test that the two samples come from one
    distribution (normal approximation, ties corrected)."""
    pooled = sorted([(value, 0) for value in first] + [(value, 1) for value in second])
    ranks = [0.0] * len(pooled)
    tie_term = 0.0
    start = 0
    while start < len(pooled):
        end = start
        while end + 1 < len(pooled) and pooled[end + 1][0] == pooled[start][0]:
            end += 1
        for index in range(start, end + 1):
            ranks[index] = (start + end) / 2 + 1
        tied = end - start + 1
        tie_term += tied**3 - tied
        start = end + 1
    n1, n2 = len(first), len(second)
    u = sum(rank for rank, (_, group) in zip(ranks, pooled, strict=True) if group == 0)
    u -= n1 * (n1 + 1) / 2
    total = n1 + n2
    variance = n1 * n2 / 12 * ((total + 1) - tie_term / (total * (total - 1)))
    z = (u - n1 * n2 / 2) / math.sqrt(variance)
    return math.erfc(abs(z) / math.sqrt(2))


def timed(kinds: dict[str, Callable[[], int]], expected: int) -> dict[str, list[float]]:
    """Run each kind's request `WARM_UP` + `SAMPLES` times in a shuffled interleaving; the
    seconds each measured one took (every answer must be `expected`)."""
    order = [kind for kind in kinds for _ in range(WARM_UP + SAMPLES)]
    random.Random(21).shuffle(order)
    seen = dict.fromkeys(kinds, 0)
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for kind in order:
        started = time.perf_counter()
        status = kinds[kind]()
        elapsed = time.perf_counter() - started
        assert status == expected, (kind, status)
        seen[kind] += 1
        if seen[kind] > WARM_UP:
            times[kind].append(elapsed)
    return times


def assert_alike(times: dict[str, list[float]]) -> None:
    (one, first), (other, second) = times.items()
    means = {one: trimmed_mean(first), other: trimmed_mean(second)}
    p = mann_whitney_p(first, second)
    report = f"trimmed means {means}, Mann-Whitney p = {p:.3g}"
    assert abs(means[one] - means[other]) <= RATIO * min(means.values()), report
    assert p >= ALPHA, report


@pytest.fixture
def unlimited(api):
    """The limits out of the way: they count both kinds alike, and this measures the rest."""
    api.app.config.update(
        SIGNUPS_PER_CLIENT=10**6,
        SIGNUPS_PER_HOUR=10**6,
        CODE_REQUESTS_PER_CLIENT=10**6,
        SIGNIN_GUESSES_PER_ACCOUNT=10**6,
    )
    api.client.post("/api/players", json={"name": "ann", "email": "ann@example.com"})
    return api


@pytest.mark.postgres
def test_registering_takes_as_long_with_an_account_as_without(unlimited):
    api, numbers = unlimited, count()

    def register(email: Callable[[int], str]) -> Callable[[], int]:
        def send() -> int:
            number = next(numbers)
            body = {"name": f"p{number}", "email": email(number)}
            return api.client.post("/api/players", json=body).status_code

        return send

    times = timed(
        {
            "registered": register(lambda _: "ann@example.com"),
            "new": register(lambda number: f"new{number}@example.com"),
        },
        202,
    )
    assert_alike(times)


@pytest.mark.postgres
def test_asking_for_a_code_takes_as_long_with_an_account_as_without(unlimited):
    def ask(email: str) -> Callable[[], int]:
        return lambda: api.client.post("/api/signin-codes", json={"email": email}).status_code

    api = unlimited
    times = timed({"registered": ask("ann@example.com"), "unknown": ask("zed@example.com")}, 202)
    assert_alike(times)


@pytest.mark.postgres
def test_a_wrong_code_takes_as_long_with_an_account_as_without(unlimited):
    api, numbers = unlimited, count()
    wrong = f"{(int(api.last_code('ann@example.com')) + 1) % 10**10:010d}"

    def exchange(email: str) -> Callable[[], int]:
        def send() -> int:  # each guess from an address of its own, as a botnet's would be
            number = next(numbers)
            remote = {"REMOTE_ADDR": f"198.51.{number // 250}.{number % 250}"}
            body = {"email": email, "code": wrong}
            return api.client.post("/api/tokens", json=body, environ_base=remote).status_code

        return send

    times = timed(
        {"registered": exchange("ann@example.com"), "unknown": exchange("zed@example.com")}, 401
    )
    assert_alike(times)
