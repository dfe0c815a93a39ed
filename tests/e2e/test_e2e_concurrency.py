"""Against a real gunicorn: races on one version, idempotent retries, and a scan of every
response of a whole game for the upcoming draws."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor

from sqlmodel import Session, select

from server.games import turns
from server.models import GameRecord, TurnRecord

CLIENTS = 8


def secret(client, game_id):
    with Session(client.engine) as session:
        game = session.get(GameRecord, game_id)
        return game.seed_hex, game.state["bag"], game.status


def leaks(text: str, seed: str, bag: list[str]) -> bool:
    runs = [sep.join(bag[:6]) for sep in (" ", ",", ", ", '","', '", "')] if len(bag) >= 6 else []
    return seed in text or '"bag"' in text or any(run in text for run in runs)


def test_race_of_eight_clients_through_a_whole_game(client):
    game_id = client.new_game("ann", "bob", "cid")
    seed, _, _ = secret(client, game_id)
    accepted: list[dict] = []
    pool = ThreadPoolExecutor(CLIENTS)
    state = client.state(game_id)
    while state["status"] == "active":
        mover = state["to_move"]
        hints = client.hints(game_id, mover, CLIENTS)
        candidates = list(itertools.islice(itertools.cycle(hints), CLIENTS))

        def submit(turn: str, version: int = state["version"], who: str = mover):
            body = {"turn": turn, "version": version}
            return client.call("POST", f"/api/games/{game_id}/turns", who, json=body)

        responses = list(pool.map(submit, candidates))
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [201] + [409] * (CLIENTS - 1), [r.text for r in responses]
        winner = next(r.json() for r in responses if r.status_code == 201)
        expected = {"game_finished", "stale_version"} if winner["game_over"] else {"stale_version"}
        errors = {r.json()["error"] for r in responses if r.status_code == 409}
        assert errors <= expected, errors
        assert winner["version"] == state["version"] + 1
        accepted.append(winner)
        state = client.state(game_id)
        _, bag, status = secret(client, game_id)
        if status == "active":
            texts = [r.text for r in responses] + [str(state), str(hints)]
            assert not any(leaks(text, seed, bag) for text in texts)
    pool.shutdown()
    with Session(client.engine) as session:
        log = session.exec(
            select(TurnRecord).where(TurnRecord.game_id == game_id).order_by(TurnRecord.number)
        ).all()
        assert [(e.number, e.notation) for e in log] == [(a["number"], a["turn"]) for a in accepted]
        game = session.get(GameRecord, game_id)
        assert turns.check(session, game) is None


def test_the_same_idempotency_key_ten_times_is_one_turn(client):
    game_id = client.new_game("ann", "bob")
    state = client.state(game_id)
    mover = state["to_move"]
    turn = client.hints(game_id, mover, 1)[0]

    def submit(_: int):
        return client.call(
            "POST",
            f"/api/games/{game_id}/turns",
            mover,
            json={"turn": turn, "version": state["version"]},
            headers={"Idempotency-Key": "one-and-only"},
        )

    with ThreadPoolExecutor(10) as pool:
        responses = list(pool.map(submit, range(10)))
    assert [r.status_code for r in responses] == [201] * 10
    assert len({r.text for r in responses}) == 1
    with Session(client.engine) as session:
        log = session.exec(select(TurnRecord).where(TurnRecord.game_id == game_id)).all()
        assert len(log) == 1
        assert session.get(GameRecord, game_id).version == state["version"] + 1
