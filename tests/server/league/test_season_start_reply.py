"""The season's start email can be answered (issue 20 item 17 made it the one email of the
start, so a first mover had no turn email to reply to): a reply with one `GAME: TURN` line
per game, sent over real SMTP to `cafe-server mail-in --listen`, plays each turn in that
game — only in the replier's games of that season; any other game is refused in one
answer that says how to write the lines."""

from __future__ import annotations

import re

import pytest
from league_support import ok, opened, start
from mail_support import outbox_rows, reply_message, send
from sqlmodel import Session, select

from server.db import get_engine
from server.models import TurnRecord

NAMES = ["ann", "bob", "cid", "dan"]


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'cafe.db'}"  # a file: replies are handled in threads


def flat(text: str) -> str:
    return " ".join(text.split())


def to(api, kind, name):
    """The emails of `kind` to `name`, once the pending events are rendered and sent."""
    api.send_events()
    return [r for r in outbox_rows(api.app, kind) if r.to_addr == f"{name}@example.com"]


def emailed_turns(api):
    with Session(get_engine(api.app)) as session:
        rows = session.exec(select(TurnRecord).where(TurnRecord.source == "email")).all()
        return {(row.game_id, row.notation) for row in rows}


@pytest.mark.postgres
def test_a_reply_to_the_season_start_plays_the_turns_it_names(api, receiver):
    tokens = opened(api, NAMES, game_size=2, division_size=4)
    season = start(api, tokens)
    games = {gid: ok(api.call("GET", f"/api/games/{gid}", tokens["ann"]))
             for gid in season["divisions"][0]["games"]}  # fmt: skip
    first = next(name for name in NAMES if any(g["to_move"] == name for g in games.values()))
    mine = [gid for gid, g in games.items() if g["to_move"] == first]
    theirs = next(gid for gid, g in games.items() if first not in g["players"])
    waiting = [gid for gid, g in games.items() if first in g["players"] and gid not in mine]
    [started] = to(api, "league_season_started", first)
    said = flat(started.body)
    assert "or by replying to this email: one line per game, its number, a colon" in said
    assert f"\n    {mine[0]}: ESm@ES1\n" in started.body
    hints = {
        gid: ok(api.call("GET", f"/api/games/{gid}/hints?n=1", tokens[first]))["hints"][0]["turn"]
        for gid in mine
    }
    lines = [f"{gid}: {turn}" for gid, turn in hints.items()]
    lines += [f"{theirs}: ESm@ES1", "9999: ESm@ES1"]
    if waiting:
        lines.append(f"{waiting[0]}: ESm@ES1")
    text = "\n".join(lines) + "\n\nOn Monday the service wrote:\n> " + f"{mine[0]}: ESm@ES1\n"
    message = reply_message(started.headers["Reply-To"], text)
    send(receiver, message)

    assert emailed_turns(api) == set(hints.items())
    for gid in mine:
        assert ok(api.call("GET", f"/api/games/{gid}", tokens[first]))["turns"] == 1
    assert len(to(api, "turn_confirmed", first)) == len(mine)
    [refused] = to(api, "league_turns_refused", first)
    assert refused.headers["In-Reply-To"] == "<reply-1@mail.example>"
    reason = flat(refused.body)
    assert f"you do not play in game {theirs}" in reason
    assert "game 9999 is not a game of season 1" in reason
    assert "one line per game, the game's number, a colon and your turn" in reason
    [example] = re.findall(r"\n    ([0-9]+): ESm@ES1\n", refused.body)
    assert first in games[int(example)]["players"]  # the example names a game of theirs
    if waiting:  # a game of theirs where it is not their move: refused as a turn email's is
        [not_yet] = to(api, "turn_refused", first)
        assert f"game {waiting[0]}" in flat(not_yet.body), not_yet.body
        assert "not your turn" in flat(not_yet.body), not_yet.body
    assert ok(api.call("GET", f"/api/games/{theirs}", tokens["ann"]))["turns"] == 0

    send(receiver, message)  # delivered twice: handled once
    assert emailed_turns(api) == set(hints.items())
    assert len(to(api, "league_turns_refused", first)) == 1


def test_a_reply_without_a_game_line_is_told_how_to_write_one(api, receiver):
    tokens = opened(api, NAMES, game_size=2, division_size=4)
    start(api, tokens)
    [started] = to(api, "league_season_started", "bob")
    send(receiver, reply_message(started.headers["Reply-To"], "Thanks, see you!\n"))
    [refused] = to(api, "league_turns_refused", "bob")
    assert "we found no line of the form GAME: TURN in your reply" in flat(refused.body)
    assert emailed_turns(api) == set()
