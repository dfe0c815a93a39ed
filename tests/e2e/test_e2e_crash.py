"""Kill -9 the server again and again while a client plays turn by turn: after each restart
every turn that got a 2xx is in the log, and the snapshot equals the replayed log."""

from __future__ import annotations

import random
import threading

import requests
from sqlmodel import Session, select

from server.games import turns
from server.models import GameRecord, TurnRecord

KILLS = 3


def test_kill_9_never_loses_an_accepted_turn(client, server):
    """A client that retries with its idempotency key after a crash gets exactly one turn."""
    game_id = client.new_game("ann", "bob")
    rng = random.Random(7)
    acknowledged: dict[int, str] = {}  # turn number -> notation, for every 201 received
    kills = 0
    state = client.state(game_id)
    while state["status"] == "active":
        mover = state["to_move"]
        turn = client.hints(game_id, mover, 1)[0]

        def submit(version: int = state["version"], who: str = mover, turn: str = turn):
            return client.call(
                "POST",
                f"/api/games/{game_id}/turns",
                who,
                json={"turn": turn, "version": version},
                headers={"Idempotency-Key": f"game-{game_id}-v{version}"},
            )

        killer = None
        if kills < KILLS and rng.random() < 0.25:
            killer = threading.Timer(rng.uniform(0, 0.03), server.kill)
            killer.start()
        try:
            response = submit()
        except requests.RequestException:  # refused, reset, or cut off mid-answer
            response = None
        if killer is not None:
            killer.join()
            kills += 1
            server.start()
            check_consistent(client, game_id, acknowledged)
        if response is None:  # the outcome is unknown: retry, as a client would
            response = submit()
        assert response.status_code == 201, response.text
        acknowledged[response.json()["number"]] = response.json()["turn"]
        state = client.state(game_id)
        assert state["version"] == response.json()["version"]
    assert kills == KILLS
    check_consistent(client, game_id, acknowledged)


def check_consistent(client, game_id, acknowledged):
    with Session(client.engine) as session:
        log = {
            entry.number: entry.notation
            for entry in session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id))
        }
        assert acknowledged.items() <= log.items()
        game = session.get(GameRecord, game_id)
        assert game.turn_count == len(log)
        assert turns.check(session, game) is None
