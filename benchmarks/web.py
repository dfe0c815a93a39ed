"""A game's web page against its JSON: page size and server time.

A three-player game is played by the greedy bot for TURNS turns through the API, in an app on
a SQLite file; then, alternating in each round, the page `/games/<id>` (signed in as the
player to move, so the hint buttons are built too) and `GET /api/games/<id>` are requested
REQUESTS times each through the WSGI test client (the server's time, no network). Printed:
the page's size (target ≤ 60 KB) and the median time per request of each, with their ratio
(target ≤ 2 × the JSON), medians over the rounds.

    .venv/bin/python benchmarks/web.py [--turns 30] [--rounds 7] [--requests 30]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)  # `benchmarks/server.py` would shadow the service's package
sys.path.insert(1, str(ROOT / "tests" / "e2e"))

from e2e_support import mailed_code  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from server import migrate  # noqa: E402
from server.app import create_app  # noqa: E402
from server.db import get_engine  # noqa: E402

SIZE_TARGET, TIME_TARGET = 60 * 1024, 2.0
CONFIG = {
    "SECRET_KEY": "benchmark-secret-of-at-least-thirty-two-bytes",
    "LOG_LEVEL": "WARNING",
    "SIGNUPS_PER_CLIENT": 1000,
    "CODE_REQUESTS_PER_CLIENT": 1000,
    "SIGNIN_GUESSES_PER_CLIENT": 1000,
}


def code_for(app: Any, email: str) -> str:
    """The newest sign-in code mailed to `email` (still in its outbox row: no worker runs)."""
    return mailed_code(get_engine(app), email)


def sign_up(app: Any, client: FlaskClient, name: str) -> str:
    email = f"{name}@example.com"
    assert client.post("/api/players", json={"name": name, "email": email}).status_code == 202
    response = client.post("/api/tokens", json={"email": email, "code": code_for(app, email)})
    assert response.status_code == 201, response.json
    return response.json["token"]


def played_game(app: Any, client: FlaskClient, turns: int) -> tuple[int, dict[str, str]]:
    """A started three-player game after `turns` greedy turns; its id and the tokens."""
    tokens = {name: sign_up(app, client, name) for name in ("ann", "bob", "cid")}
    auth = {name: {"Authorization": f"Bearer {t}"} for name, t in tokens.items()}
    game_id = client.post("/api/games", json={"seats": 3}, headers=auth["ann"]).json["id"]
    for name in ("bob", "cid"):
        assert client.post(f"/api/games/{game_id}/join", headers=auth[name]).status_code == 200
    assert client.post(f"/api/games/{game_id}/start", headers=auth["ann"]).status_code == 200
    for _ in range(turns):
        state = client.get(f"/api/games/{game_id}", headers=auth["ann"]).json
        if state["status"] != "active":
            break
        mover = auth[state["to_move"]]
        [hint] = client.get(f"/api/games/{game_id}/hints?n=1", headers=mover).json["hints"]
        body = {"turn": hint["turn"], "version": state["version"]}
        played = client.post(f"/api/games/{game_id}/turns", json=body, headers=mover)
        assert played.status_code == 201, played.json
    return game_id, tokens


def web_session(app: Any, name: str) -> FlaskClient:
    """A test client signed in on the web as `name`."""
    web = app.test_client()
    email = f"{name}@example.com"
    form = web.get("/signin").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
    web.post("/signin", data={"csrf": csrf, "email": email})
    done = web.post(
        "/signin/code", data={"csrf": csrf, "email": email, "code": code_for(app, email)}
    )
    assert done.status_code == 303, done.text
    return web


def per_request(call: Any, requests: int) -> float:
    """Seconds per request, over `requests` calls."""
    start = time.perf_counter()
    for _ in range(requests):
        response = call()
        assert response.status_code == 200
    return (time.perf_counter() - start) / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'bench.db'}"
        migrate.upgrade(url)
        app = create_app({**CONFIG, "DATABASE_URL": url})
        api = app.test_client()
        game_id, tokens = played_game(app, api, args.turns)
        mover = api.get(
            f"/api/games/{game_id}", headers={"Authorization": f"Bearer {tokens['ann']}"}
        ).json["to_move"]
        web = web_session(app, mover)
        headers = {"Authorization": f"Bearer {tokens[mover]}"}
        page = web.get(f"/games/{game_id}")
        assert "one click plays it" in page.text, "the page should offer the mover's turns"
        size = len(page.data)
        pages, jsons = [], []
        for _ in range(args.rounds):
            pages.append(per_request(lambda: web.get(f"/games/{game_id}"), args.requests))
            jsons.append(
                per_request(
                    lambda: api.get(f"/api/games/{game_id}", headers=headers), args.requests
                )
            )
        page_ms, json_ms = statistics.median(pages) * 1000, statistics.median(jsons) * 1000
        ratio = page_ms / json_ms
        print(f"game after {args.turns} turns, {args.rounds} rounds of {args.requests} requests")
        verdict = "met" if size <= SIZE_TARGET else "MISSED"
        print(f"page size            {size / 1024:6.1f} KB   target ≤ 60 KB: {verdict}")
        print(
            f"GET /games/<id>      {page_ms:6.2f} ms (median; spread {min(pages) * 1000:.2f}-"
            f"{max(pages) * 1000:.2f})"
        )
        print(
            f"GET /api/games/<id>  {json_ms:6.2f} ms (median; spread {min(jsons) * 1000:.2f}-"
            f"{max(jsons) * 1000:.2f})"
        )
        verdict = "met" if ratio <= TIME_TARGET else "MISSED"
        print(f"page ÷ JSON          {ratio:6.2f}      target ≤ 2: {verdict}")


if __name__ == "__main__":
    main()
