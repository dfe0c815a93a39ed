"""A whole league end to end (issue 12 §5): gunicorn on the development clock, a
`cafe-server worker` delivering to an SMTP sink, time moved by `cafe-server clock advance`
and turns replied by email through `cafe-server mail-in`, as an operator's mail server
would pipe them.

Nine players register for season 1 of a three-player league (division_size 4: divisions
of 5 and 4; one-day turns, `autoplay`, one time-out allowed, no vacation). Bots play
through the API (`GET /api/games/<id>/hints?n=1`, then `POST …/turns`), the first turns
of one game by email reply (a season's start sends one email per member, not a "your turn"
per game: the first email turns answer the "your turn" of the game's second mover); after
a few real turns every game ends by resignations in a fixed order (the first name
alphabetically resigns first), which is legitimate play and keeps the test short — Café
games are long. One player of division 1 withdraws midway (their running games are
resigned). One player of division 2 never plays: the clock is moved past their deadline in
all their games at once, they time out (a turn is played for them), then are removed from
every game they had left — so they are out of the season, removed on time. The season
ends: its moves, and the season-finished email to each member, the two who left too; season
2 opens with the members re-registered (not the two who left), a newcomer joins, it starts
with divisions reflecting the moves and each member's reason, is played out by
resignations, and `cafe-server league check` finds nothing to report.
"""

from __future__ import annotations

import subprocess
import time
import uuid
from datetime import datetime
from email.message import EmailMessage
from typing import Any

from e2e_support import ROOT, cafe_server, wait_for, worker_environment
from sqlmodel import Session, col, select

from server.devmail import CatchingHandler
from server.models import OutboxMessage

CLOCK = {"days_per_turn": 1, "timeout": "autoplay", "max_timeouts": 1, "vacation": False}
NAMES = ("ada", "ben", "cy", "dot", "eli", "flo", "gil", "hux", "ian")
REAL_TURNS = 3  # turns played in each game before its players resign
EMAIL_TURNS = 2  # of the first game, played by email reply


class League:
    """The league, its players, the operator's clock and mail, as the test drives them."""

    def __init__(self, client: Any, env: dict[str, str], slug: str) -> None:
        self.client, self.env, self.slug = client, env, slug

    # --- the API ---------------------------------------------------------------------

    def call(self, method: str, path: str, who: str | None = None, **kwargs: Any) -> Any:
        response = self.client.call(method, path, who, **kwargs)
        assert response.ok, (method, path, response.status_code, response.text)
        return response.json()

    def season(self, number: int) -> dict[str, Any]:
        return self.call("GET", f"/api/leagues/{self.slug}/seasons/{number}")

    def game(self, game_id: int) -> dict[str, Any]:
        return self.client.state(game_id)

    def play(self, game_id: int, who: str) -> None:
        """`who` plays the best turn through the API."""
        state = self.game(game_id)
        turn = self.client.hints(game_id, who, 1)[0]
        body = {"turn": turn, "version": state["version"]}
        self.call("POST", f"/api/games/{game_id}/turns", who, json=body)

    def resign_all_but_one(self, game_id: int) -> None:
        """The players still in the game resign in name order, until it ends."""
        state = self.game(game_id)
        active = [
            name for seat, name in enumerate(state["players"]) if not state["eliminated"][seat]
        ]
        for name in sorted(active)[:-1]:
            if self.game(game_id)["status"] == "active":
                self.call("POST", f"/api/games/{game_id}/resign", name)
        assert self.game(game_id)["status"] == "finished"

    # --- email replies ---------------------------------------------------------------

    def reply_by_email(self, game_id: int) -> None:
        """The player to move answers their "your turn" email with `1` (the first turn
        it offers), piped to `cafe-server mail-in` as a mail server would."""
        state = self.game(game_id)
        mover, version = state["to_move"], state["version"]
        sent: list[OutboxMessage] = []

        def your_turn_sent() -> bool:
            with Session(self.client.engine) as session:
                sent[:] = session.exec(
                    select(OutboxMessage).where(
                        OutboxMessage.kind == "your_turn",
                        OutboxMessage.game_id == game_id,
                        OutboxMessage.version == version,
                        OutboxMessage.to_addr == f"{mover}@example.com",
                        OutboxMessage.status == "sent",
                    )
                ).all()
            return bool(sent)

        wait_for(f"send {mover} their turn in game {game_id}", your_turn_sent)
        address = (sent[0].headers or {})["Reply-To"]
        reply = EmailMessage()
        reply["From"] = f"{mover} <{mover}@example.com>"
        reply["To"] = address
        reply["Subject"] = f"Re: {sent[0].subject}"
        reply["Message-ID"] = f"<{uuid.uuid4().hex}@mail.example>"
        reply.set_content("1\n\nThanks!\n")
        done = subprocess.run(
            cafe_server("mail-in", "--to", address, "--sender", f"{mover}@example.com"),
            input=reply.as_bytes(),
            env=self.env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")
        assert self.game(game_id)["version"] == version + 1, done.stdout

    # --- the operator ----------------------------------------------------------------

    def now(self) -> datetime:
        """The time the server sees, as `/healthz` reports the development clock."""
        return datetime.fromisoformat(self.call("GET", "/healthz")["dev_clock"]["now"])

    def advance_past(self, when: datetime) -> None:
        """`cafe-server clock advance` to a minute past `when`, as an operator runs it."""
        minutes = int((when - self.now()).total_seconds() // 60) + 2
        done = subprocess.run(
            cafe_server("clock", "advance", f"{minutes}m"),
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr

    def delivered(self) -> bool:
        """Whether the outbox has nothing left to send."""
        with Session(self.client.engine) as session:
            return (
                session.exec(
                    select(OutboxMessage.id).where(
                        col(OutboxMessage.status).in_(["pending", "sending"])
                    )
                ).first()
                is None
            )


def play_a_little(league: League, game_id: int, turns: int, *, avoid: str | None = None) -> None:
    """Real turns by the bots, at most `turns`, stopping where `avoid` is to move."""
    for _ in range(turns):
        state = league.game(game_id)
        if state["status"] != "active" or state["to_move"] == avoid:
            return
        league.play(game_id, state["to_move"])


def games_of(season: dict[str, Any], division: int | None = None) -> list[int]:
    return [
        game
        for d in season["divisions"]
        if division is None or d["number"] == division
        for game in d["games"]
    ]


def test_two_seasons_of_a_league_with_real_processes(dev_client, database_url, sink, tmp_path):
    handler, smtp_port = sink
    client = dev_client
    env = worker_environment(database_url, smtp_port)
    started = time.monotonic()
    worker: subprocess.Popen[bytes] | None = None
    try:
        organiser = client.sign_up("org")
        players = [client.sign_up(name) for name in NAMES]
        slug = f"e2e{uuid.uuid4().hex[:6]}"
        league = League(client, env, slug)
        settings = {
            "name": "End to end", "slug": slug, "game_size": 3, "division_size": 4,
            "promote": 2, "relegate": 2, "clock": CLOCK,
        }  # fmt: skip
        league.call("POST", "/api/leagues", organiser, json=settings)
        league.call("POST", f"/api/leagues/{slug}/seasons", organiser)
        for name in players:
            league.call("POST", f"/api/leagues/{slug}/seasons/1/register", name)
        worker = subprocess.Popen(
            cafe_server("worker"),
            env=env,
            stderr=(tmp_path / "worker.log").open("wb"),
            cwd=ROOT,
        )
        season = league.call("POST", f"/api/leagues/{slug}/seasons/1/start", organiser)
        assert [len(d["players"]) for d in season["divisions"]] == [5, 4]
        ghost = sorted(season["divisions"][1]["players"])[0]  # never plays
        leaver = sorted(season["divisions"][0]["players"])[1]  # withdraws midway
        season_one(league, season, ghost=ghost, leaver=leaver)
        finished = league.season(1)
        check_season_one(league, finished, ghost=ghost, leaver=leaver, members=players)
        wait_for("deliver every message", league.delivered)
        check_season_mail(client, handler, slug, members=set(players), gone={leaver, ghost})

        opened = league.call("POST", f"/api/leagues/{slug}/seasons", organiser)
        assert sorted(opened["registered"]) == sorted(set(players) - {leaver, ghost})
        newcomer = client.sign_up("jo")
        league.call("POST", f"/api/leagues/{slug}/seasons/2/register", newcomer)
        second = league.call("POST", f"/api/leagues/{slug}/seasons/2/start", organiser)
        check_season_two(second, finished["moves"], gone={leaver, ghost}, newcomer=newcomer)
        for game_id in games_of(second):
            league.resign_all_but_one(game_id)
        assert league.season(2)["status"] == "finished"

        checked = subprocess.run(
            cafe_server("league", "check"),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        wait_for("deliver every message", league.delivered)
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(10)
    log = (tmp_path / "worker.log").read_text(errors="replace")
    assert "Traceback" not in log, log
    print(f"league end to end on {database_url.split(':')[0]}: {time.monotonic() - started:.1f} s")


def season_one(league: League, season: dict[str, Any], *, ghost: str, leaver: str) -> None:
    """Play season 1 to its end: email turns, bots, a withdrawal, the ghost's time-outs."""
    games = games_of(season)
    ghostly = [g for g in games if ghost in league.game(g)["players"]]
    others = [g for g in games if g not in ghostly]
    first = others[0]
    play_a_little(league, first, 1)  # the season's start sent no "your turn" email
    for _ in range(EMAIL_TURNS):
        league.reply_by_email(first)
    for game_id in others:
        play_a_little(league, game_id, REAL_TURNS)
    withdrawn = league.call("POST", f"/api/leagues/{league.slug}/seasons/1/withdraw", leaver)
    assert leaver in withdrawn["withdrawn"]
    for game_id in others:
        if league.game(game_id)["status"] == "active":
            league.resign_all_but_one(game_id)
    # Only the ghost's games still run. Each is played until the ghost is to move, then
    # the clock passes their deadlines at once: the first time a turn is played for them,
    # the second time they are removed.
    for timeouts in (1, 2):
        versions = {}
        for game_id in ghostly:
            play_a_little(league, game_id, 10, avoid=ghost)
            state = league.game(game_id)
            assert state["to_move"] == ghost, state
            versions[game_id] = (state["version"], datetime.fromisoformat(state["deadline"]))
        league.advance_past(max(deadline for _, deadline in versions.values()))
        for game_id, (version, _) in versions.items():
            wait_for(
                f"time {ghost} out in game {game_id}",
                lambda g=game_id, v=version: league.game(g)["version"] > v,
            )
            state = league.game(game_id)
            seat = state["players"].index(ghost)
            assert state["timeouts"][seat] == timeouts, state
            assert state["eliminated"][seat] == (timeouts == 2), state
    for game_id in ghostly:
        if league.game(game_id)["status"] == "active":
            league.resign_all_but_one(game_id)


def check_season_one(
    league: League, season: dict[str, Any], *, ghost: str, leaver: str, members: list[str]
) -> None:
    """Season 1 is over: final tables, the withdrawal and the time-outs in them, the seed
    revealed, the moves (two up, two down), the games all finished."""
    assert season["status"] == "finished" and season["seed"] is not None
    assert season["withdrawn"] == sorted([leaver, ghost])
    assert sorted(season["registered"]) == sorted(set(members) - {leaver, ghost})
    rows = {row["player"]: row for d in season["divisions"] for row in d["standings"]}
    assert sorted(rows) == sorted(members)
    assert rows[leaver]["withdrawn"] is True and rows[leaver]["left"] == "withdrew"
    assert rows[ghost]["left"] == "removed_on_time" and rows[ghost]["timeouts"] == 2 * 2
    assert rows[ghost]["points"] == 0 and rows[ghost]["played"] == 2
    for division in season["divisions"]:
        still_in = len([p for p in division["players"] if p not in (leaver, ghost)])
        places = [row["place"] for row in division["standings"]]
        assert places == [*range(1, still_in + 1), *[None] * (len(places) - still_in)]
        for game_id in division["games"]:
            assert league.game(game_id)["status"] == "finished"
    moves = season["moves"]
    assert len([m for m in moves if m["direction"] == "up"]) == 2
    assert len([m for m in moves if m["direction"] == "down"]) == 2
    assert all(m["from_division"] == 2 for m in moves if m["direction"] == "up")
    assert all(m["from_division"] == 1 for m in moves if m["direction"] == "down")


def check_season_mail(
    client: Any, handler: CatchingHandler, slug: str, *, members: set[str], gone: set[str]
) -> None:
    """Every member got the season-finished email, once, and it arrived: its subject names
    the season and their place (their division, for those who left), its body the final
    table."""
    with Session(client.engine) as session:
        rows = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.status == "sent", OutboxMessage.kind == "league_season_finished"
            )
        ).all()
    delivered = {message["Message-ID"] for message in handler.messages}
    for name in members:
        mine = [row for row in rows if row.to_addr == f"{name}@example.com"]
        assert len(mine) == 1, f"{name} got {len(mine)} season-finished emails"
        [row] = mine
        said = "the final table of division" if name in gone else "you placed"
        assert f"season 1 is over, {said}" in (row.subject or ""), row.subject
        assert slug in (row.body or "") and name in (row.body or "")
        assert row.message_id in delivered


def check_season_two(
    season: dict[str, Any], moves: list[dict[str, Any]], *, gone: set[str], newcomer: str
) -> None:
    """Season 2's divisions follow season 1's moves: who went up is in division 1, who
    went down in division 2, the newcomer in the last, each with that reason; those who
    left are nowhere."""
    assert season["status"] == "running"
    divisions = [set(d["players"]) for d in season["divisions"]]
    assert [len(d) for d in divisions] == [4, 4]
    assert not gone & set().union(*divisions)
    ups = {m["player"] for m in moves if m["direction"] == "up"}
    downs = {m["player"] for m in moves if m["direction"] == "down"}
    assert ups <= divisions[0], (ups, divisions)
    assert downs <= divisions[1] and newcomer in divisions[1], (downs, divisions)
    why = {row["player"]: row["placed"] for d in season["divisions"] for row in d["standings"]}
    assert {p for p, reason in why.items() if reason == "up"} == ups
    assert {p for p, reason in why.items() if reason == "down"} == downs
    assert why[newcomer] == "new"
    assert {p for p, reason in why.items() if reason == "stayed"} == (
        set(why) - ups - downs - {newcomer}
    )
