"""Moves announced, then placed (issue 20 §2): the final table and email call the moves
"as things stand"; when a newcomer joins and the divisions are refilled in order
(docs/league.md), a player the table moved down stays in division 1 — and the next season's
start email, the season page and the API all say so, with every member's reason."""

from __future__ import annotations

import pytest
from league_support import finish, ok, opened, start
from mail_support import outbox_rows, read_html

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
LEAGUE = {"game_size": 4, "division_size": 4, "promote": 1, "relegate": 1}


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.postgres
def test_the_next_season_says_where_each_member_plays_and_why(api):
    tokens = opened(api, NAMES, **LEAGUE)
    one = finish(api, tokens, start(api, tokens))  # the last name wins each game
    assert [(m["player"], m["direction"]) for m in one["moves"]] == [("ann", "down"), ("hal", "up")]
    [ann] = [
        r for r in outbox_rows(api.app, "league_season_finished") if r.to_addr.startswith("ann")
    ]
    assert "You placed 4: you move down to division 2 next season, as things stand;" in flat(
        ann.body
    )
    page = api.client.get("/leagues/tuesday/seasons/1").text
    assert "As things stand; refilling can change them when the next season starts." in page

    ok(api.call("POST", "/api/leagues/tuesday/seasons", tokens["ann"]), 201)
    tokens["ivy"] = api.register("ivy")
    ok(api.call("POST", "/api/leagues/tuesday/seasons/2/register", tokens["ivy"]))
    before = len(outbox_rows(api.app, "league_season_started"))
    two = start(api, tokens, number=2)
    # nine players: divisions of 5 and 4, cut from dan cid bob hal | ann gus fay eve | ivy
    assert [d["players"] for d in two["divisions"]] == [
        ["ann", "bob", "cid", "dan", "hal"],
        ["eve", "fay", "gus", "ivy"],
    ]
    why = {
        row["player"]: (row["placed"], row["placed_from"])
        for d in two["divisions"]
        for row in d["standings"]
    }
    assert why == {
        "ann": ("filled", 1), "bob": ("stayed", 1), "cid": ("stayed", 1), "dan": ("stayed", 1),
        "hal": ("up", 2), "eve": ("stayed", 2), "fay": ("stayed", 2), "gus": ("stayed", 2),
        "ivy": ("new", None),
    }  # fmt: skip
    division = ok(api.call("GET", "/api/leagues/tuesday/seasons/2/divisions/1"))
    assert {r["player"]: r["placed"] for r in division["divisions"][0]["standings"]}["ann"] == (
        "filled"
    )
    words = {r["player"]: r["placed_text"] for d in two["divisions"] for r in d["standings"]}
    assert words["ann"] == "stayed in division 1 to fill a place"  # the page's, the CLI's
    assert words["hal"] == "moved up from division 2" and words["ivy"] == "new this season"

    started = {r.to_addr.split("@")[0]: r for r in outbox_rows(api.app, "league_season_started")}
    assert len(outbox_rows(api.app, "league_season_started")) - before == 9
    said = {
        "ann": "You play in division 1 (stayed in division 1 to fill a place) with",
        "hal": "You play in division 1 (moved up from division 2) with",
        "bob": "You play in division 1 (stayed in division 1) with",
        "eve": "You play in division 2 (stayed in division 2) with",
        "ivy": "You play in division 2 (new this season) with",
    }
    for name, sentence in said.items():
        assert sentence in flat(started[name].body), name
        assert sentence in flat(" ".join(read_html(started[name].html).text)), name
    refilled = "The divisions were refilled in order as players left or joined"
    assert refilled in flat(started["ann"].body) and refilled not in flat(started["hal"].body)

    page = api.client.get("/leagues/tuesday/seasons/2").text
    for text in (
        "stayed in division 1 to fill a place",
        "moved up from division 2",
        "new this season",
    ):
        assert f'<span class="why">{text}</span>' in page
