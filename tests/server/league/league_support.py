"""A league season through the API, for the league's email tests."""

from __future__ import annotations

from typing import Any

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
SETTINGS = {"name": "Tuesday Club", "slug": "tuesday", "game_size": 3, "division_size": 4}


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.json
    return response.json


def opened(api: Any, names: list[str] = NAMES, **settings: Any) -> dict[str, str]:
    """Everyone registered for the service; `ann`'s league created and its first season
    open, with everyone registered for it. Everyone's token."""
    tokens = {name: api.register(name) for name in names}
    ok(api.call("POST", "/api/leagues", tokens["ann"], json={**SETTINGS, **settings}), 201)
    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    for name in names:
        ok(api.call("POST", "/api/leagues/tuesday/seasons/1/register", tokens[name]))
    return tokens


def start(api: Any, tokens: dict[str, str], number: int = 1) -> dict[str, Any]:
    """Start the season; the season as the API shows it."""
    return ok(api.call("POST", f"/api/leagues/tuesday/seasons/{number}/start", tokens["ann"]))


def finish(api: Any, tokens: dict[str, str], season: dict[str, Any]) -> dict[str, Any]:
    """Finish every game of the season by resignations in name order (the last name wins
    each game); the finished season."""
    for division in season["divisions"]:
        for game_id in division["games"]:
            players = ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))["players"]
            for name in sorted(players)[:-1]:
                ok(api.call("POST", f"/api/games/{game_id}/resign", tokens[name]))
    return ok(api.call("GET", f"/api/leagues/tuesday/seasons/{season['number']}"))


def prefer(api: Any, token: str, **changes: Any) -> None:
    """Change the player's email preferences."""
    ok(api.call("PATCH", "/api/me/preferences", token, json=changes))


def finish_all(api: Any, tokens: dict[str, str], season: dict[str, Any]) -> None:
    """End every running game of the season: the players still in resign in name order."""
    for division in season["divisions"]:
        for game_id in division["games"]:
            game = ok(api.call("GET", f"/api/games/{game_id}", tokens["ann"]))
            seats = zip(game["players"], game["eliminated"], strict=True)
            still_in = [name for name, out in seats if not out]
            for name in sorted(still_in)[:-1]:
                if game["status"] == "active":
                    game = ok(api.call("POST", f"/api/games/{game_id}/resign", tokens[name]))
