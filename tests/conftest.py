"""For every test: no mail to a developer's running service, and no timed property tests.

`make run` catches mail on port 8025, the service's default `SMTP_PORT`; a test that sends
mail without naming a port (a worker run through the CLI, a subprocess) would deliver it
there. Every test gets its own free port instead, in `CAFE_SMTP_PORT`, which the service
and its subprocesses read; nothing listens on it unless the test starts a server there.

Hypothesis fails an example that takes longer than 200 ms by default: a speed check inside
a unit test, which a loaded machine fails (a clock property test did, under a load test).
Speed is measured in `benchmarks/`; here no example has a deadline.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings
from smtp_support import Catchers, free_port

settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")


@pytest.fixture(autouse=True)
def own_smtp_port(monkeypatch: pytest.MonkeyPatch) -> int:
    """This test's SMTP port (never 8025)."""
    port = free_port()
    monkeypatch.setenv("CAFE_SMTP_PORT", str(port))
    return port


@pytest.fixture
def smtp_catcher() -> Iterator[Catchers]:
    """Real SMTP servers on loopback for this test (`smtp_support.Catchers`), stopped at
    its end."""
    catchers = Catchers()
    yield catchers
    catchers.stop_all()
