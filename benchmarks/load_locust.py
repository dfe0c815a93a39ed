"""The traffic of a league in play, for Locust (`benchmarks/load.py` runs it headless).

Each Locust user is a player's client going round the seeded games (`LOAD_ROSTER`, the
roster `benchmarks/load_seed.py` wrote), one turn per round at `LOAD_TURN_RATE` turns a
second over all users (`constant_throughput`, each user at a random phase of its period,
so that the rounds come evenly, not in bursts of every user at once): the game's state as
one of its players sees it (`GET state`), the best turn of the player to move (`GET
hints`), and that turn played against the version the state showed (`POST turn`, with an
`Idempotency-Key`). A share of rounds (`LOAD_STALE`) first sends the turn against the
version before, which must be refused with 409 (`POST turn (stale)`); every fourth round
reads the player's list of games with the ETag it was last given (`GET list`: 200 or 304),
every fifth the game's web page signed out (`GET page`).

A request that gets no answer (the connection was cut: a web process killed) or a 502–504 is
sent again, a turn with its same `Idempotency-Key`, so that a turn applied before its answer
was lost is answered from the stored response, not played twice. A turn refused with 409
because the game moved on meanwhile (another round on the same game, a time-out) is the
compare-and-set doing its job: counted as `lost_races`, not an error. Anything else outside
the expected answers is marked failed, so Locust's CSV counts it.

When the run ends, the ledger (`LOAD_LEDGER`, JSON) records every turn confirmed with 201
(game and idempotency key) and the counts above, for `benchmarks/load_report.py`.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from locust import FastHttpUser, constant_throughput, events, task

ROSTER = json.loads(Path(os.environ["LOAD_ROSTER"]).read_text())
TOKENS = {player["name"]: player["token"] for player in ROSTER["players"]}
GAMES: list[dict[str, Any]] = ROSTER["games"]
TURN_RATE = float(os.environ.get("LOAD_TURN_RATE", "50"))
USERS = int(os.environ.get("LOAD_USERS", "50"))
STALE = float(os.environ.get("LOAD_STALE", "0.02"))
RNG = random.Random(int(os.environ.get("LOAD_SEED", "1")))
#: Answers that are no answer: sent again (a turn with its same key).
RETRIED = {0, 502, 503, 504}
#: How often, and how long apart, a request is sent again.
RETRIES, RETRY_PAUSE = 20, 0.25

confirmed: list[tuple[int, str]] = []
counts: Counter[str] = Counter()


class Player(FastHttpUser):
    """A player's client: one turn a round (see the module's docstring)."""

    wait_time = constant_throughput(TURN_RATE / USERS)

    def on_start(self) -> None:
        self.etags: dict[str, str] = {}
        self.rounds = 0
        # each user at its own phase of the round's period: started together (Locust spawns
        # them within a second), they would keep sending their rounds in one burst
        time.sleep(RNG.random() * USERS / TURN_RATE)

    def send(
        self,
        method: str,
        path: str,
        name: str,
        expected: tuple[int, ...],
        token: str | None = None,
        **kwargs: Any,
    ) -> tuple[int, Any]:
        """`method path` (again while it gets no answer); its status and JSON body. A
        status outside `expected` is a failure in Locust's figures."""
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        for _ in range(RETRIES):
            with self.client.request(
                method, path, name=name, headers=headers, catch_response=True, **kwargs
            ) as response:
                status = response.status_code or 0
                if status in RETRIED:
                    counts["retried"] += 1
                    response.failure(f"no answer ({status}), sent again")
                elif status in expected:
                    response.success()
                    body = response.json() if status != 304 and "json" in _type(response) else None
                    return status, body
                else:
                    response.failure(f"unexpected {status}: {(response.text or '')[:200]}")
                    return status, None
            time.sleep(RETRY_PAUSE)
        counts["gave_up"] += 1
        return 0, None

    @task
    def round(self) -> None:
        self.rounds += 1
        game = RNG.choice(GAMES)
        path = f"/api/games/{game['id']}"
        viewer = TOKENS[ROSTER["players"][RNG.choice(game["seats"])]["name"]]
        _, state = self.send("GET", path, "GET state", (200,), viewer)
        if state is None or state["status"] != "active":
            counts["not_active"] += 1
            return
        mover = TOKENS[state["to_move"]]
        _, hints = self.send("GET", f"{path}/hints?n=1", "GET hints", (200, 409), mover)
        if hints is None or not hints.get("hints"):
            return
        turn = hints["hints"][0]["turn"]
        if RNG.random() < STALE and state["version"] > 0:
            stale = {"turn": turn, "version": state["version"] - 1}
            self.send("POST", f"{path}/turns", "POST turn (stale)", (409,), mover, json=stale)
            counts["stale_refused"] += 1
        key = uuid.uuid4().hex
        status, _ = self.send(
            "POST",
            f"{path}/turns",
            "POST turn",
            (201, 409),
            mover,
            json={"turn": turn, "version": state["version"]},
            headers={"Idempotency-Key": key},
        )
        if status == 201:
            confirmed.append((game["id"], key))
        elif status == 409:
            counts["lost_races"] += 1
        if self.rounds % 4 == 0:
            self.list_games(viewer)
        if self.rounds % 5 == 0:
            self.send("GET", f"/games/{game['id']}", "GET page", (200,))

    def list_games(self, token: str) -> None:
        """The player's games with the ETag of the last answer (304 when nothing changed)."""
        headers = {"If-None-Match": self.etags[token]} if token in self.etags else {}
        with self.client.get(
            "/api/games?mine=true&limit=20",
            name="GET list",
            headers={**headers, "Authorization": f"Bearer {token}"},
            catch_response=True,
        ) as response:
            if response.status_code == 200:
                self.etags[token] = response.headers.get("ETag", "")
                response.success()
            elif response.status_code == 304:
                counts["not_modified"] += 1
                response.success()
            else:
                response.failure(f"unexpected {response.status_code}")


def _type(response: Any) -> str:
    return str(response.headers.get("Content-Type", ""))


@events.test_stop.add_listener
def _write_ledger(**_: Any) -> None:
    Path(os.environ["LOAD_LEDGER"]).write_text(
        json.dumps({"confirmed": confirmed, "counts": dict(counts)})
    )
