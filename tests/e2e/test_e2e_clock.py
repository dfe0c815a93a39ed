"""End to end on the development clock: gunicorn and two `cafe-server worker` processes on one
database, an SMTP sink, and time moved by `cafe-server clock advance` as an operator would.

A three-player game (one-day turns, `autoplay`, `max_timeouts` 2, vacation allowed): `pat`
plays every turn through the API at once; `val` declares a two-day vacation starting in an
hour (before her turn: the clock is moved to its start first) and plays once it is over;
`nat` never plays (his bank is empty, so no automatic vacation day saves him): he is
reminded six hours before each deadline, times out twice (a turn played for him each time)
and is removed at the third. Then pat and val
play the game to its end. Checked: each player's mail as the sink received it, none twice;
the game's state (`timeouts`, the removal, the deadline); and its record (` | timeout`
lines, `-- nat… times out`) verified by `cafe verify`.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from e2e_support import ROOT, cafe_server, wait_for, worker_environment
from sqlalchemy import update
from sqlmodel import Session, col, select
from worker_support import SWEEP_LOGGING, wait_for_further_sweeps

from server.devmail import CatchingHandler
from server.models import OutboxMessage, Player

CAFE = Path(sys.executable).parent / "cafe"
CLOCK = {"days_per_turn": 1, "timeout": "autoplay", "max_timeouts": 2, "vacation": True}


class Table:
    """The game, its players and the operator's clock, as the test drives them."""

    def __init__(self, client: Any, env: dict[str, str], game_id: int) -> None:
        self.client, self.env, self.game_id = client, env, game_id

    def state(self) -> dict[str, Any]:
        return self.client.state(self.game_id)

    def advance(self, by: timedelta) -> None:
        """`cafe-server clock advance` by whole minutes, as an operator runs it."""
        minutes = int(by.total_seconds() // 60) + 1
        done = subprocess.run(
            cafe_server("clock", "advance", f"{minutes}m"),
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("time "), done.stdout

    def now(self) -> datetime:
        """The time the server sees, as `/healthz` reports the development clock."""
        health = self.client.call("GET", "/healthz").json()
        return datetime.fromisoformat(health["dev_clock"]["now"])

    def play(self, who: str) -> None:
        """`who` plays the best turn through the API."""
        state = self.state()
        turn = self.client.hints(self.game_id, who, 1)[0]
        body = {"turn": turn, "version": state["version"]}
        answer = self.client.call("POST", f"/api/games/{self.game_id}/turns", who, json=body)
        assert answer.status_code == 201, answer.text

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


def empty_bank(client: Any, name: str) -> None:
    """Set `name`'s vacation bank to nothing (test setup: no automatic vacation day)."""
    with Session(client.engine) as session:
        session.execute(
            update(Player)
            .where(col(Player.name) == name)
            .values(vacation_hours=0, vacation_as_of=datetime.now(UTC), vacation_carry=0)
        )
        session.commit()


def test_reminders_timeouts_removal_and_a_vacation_with_real_workers(
    dev_client, database_url, sink, tmp_path
):
    handler, smtp_port = sink
    client = dev_client
    env = worker_environment(database_url, smtp_port)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        pat, nat, val = (client.sign_up(name) for name in ("pat", "nat", "val"))
        made = client.call("POST", "/api/games", pat, json={"seats": 3, "clock": CLOCK}).json()
        game_id = made["id"]
        for name in (nat, val):
            assert client.call("POST", f"/api/games/{game_id}/join", name).status_code == 200
        empty_bank(client, nat)
        assert client.call("POST", f"/api/games/{game_id}/start", pat).status_code == 200
        table = Table(client, env, game_id)
        start = (table.now() + timedelta(hours=1)).isoformat()
        declared = client.call("POST", "/api/me/vacation", val, json={"days": 2, "start": start})
        assert declared.status_code == 201, declared.text
        vacation_end = datetime.fromisoformat(declared.json()["current"]["end"])
        logs = [tmp_path / f"worker{n}.log" for n in range(2)]
        workers = [
            subprocess.Popen(
                cafe_server("worker"), env={**env, **SWEEP_LOGGING}, stderr=log.open("wb"), cwd=ROOT
            )
            for log in logs
        ]
        removed = drive(table, pat=pat, nat=nat, val=val, vacation_end=vacation_end)
        check_state(removed, nat)
        while table.state()["status"] == "active":
            table.play(table.state()["to_move"])
        wait_for("deliver every message", table.delivered)
        wait_for_further_sweeps(logs)  # and polls of the outbox: nothing more is sent
        check_mail(client, handler, pat=pat, nat=nat, val=val)
        check_record(client, game_id, nat, tmp_path)
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait(10)
    for n in range(2):
        log = (tmp_path / f"worker{n}.log").read_text(errors="replace")
        assert "Traceback" not in log, log


def drive(table: Table, *, pat: str, nat: str, val: str, vacation_end: datetime) -> dict:
    """Play until nat is removed: pat at once, val after her vacation, nat never (the
    clock is advanced to his reminder, then past his deadline); the state then. First the
    clock goes to the start of val's vacation, which the workers must notice."""
    vacation_start = vacation_end - timedelta(days=2)
    table.advance(vacation_start - table.now())
    wait_for("start her vacation", lambda: mails_of(table, val, "vacation_started"))
    while True:
        wait_for("deliver the mail of the last change", table.delivered)
        state = table.state()
        mover = state["to_move"]
        if mover == pat:
            table.play(pat)
        elif mover == val:
            if table.now() < vacation_end:
                table.advance(vacation_end - table.now())
                wait_for("end her vacation", lambda: mails_of(table, val, "vacation_ended"))
            table.play(val)
        else:
            assert mover == nat
            deadline, version = datetime.fromisoformat(state["deadline"]), state["version"]
            table.advance(deadline - timedelta(hours=6) - table.now())
            wait_for("remind nat", lambda v=version: reminded(table, v))
            table.advance(deadline - table.now())
            wait_for("time nat out", lambda v=version: table.state()["version"] != v)
            after = table.state()
            if nat not in after["players"] or after["eliminated"][after["players"].index(nat)]:
                return after


def mails_of(table: Table, name: str, kind: str) -> list[OutboxMessage]:
    with Session(table.client.engine) as session:
        return list(
            session.exec(
                select(OutboxMessage).where(
                    OutboxMessage.to_addr == f"{name}@example.com",
                    OutboxMessage.kind == kind,
                    OutboxMessage.status == "sent",
                )
            )
        )


def reminded(table: Table, version: int) -> bool:
    with Session(table.client.engine) as session:
        return (
            session.exec(
                select(OutboxMessage.id).where(
                    OutboxMessage.kind == "reminder",
                    OutboxMessage.version == version,
                    OutboxMessage.status == "sent",
                )
            ).first()
            is not None
        )


def check_state(state: dict, nat: str) -> None:
    seat = state["players"].index(nat)
    assert state["status"] == "active"
    assert state["timeouts"][seat] == 3
    assert state["to_move"] != nat and state["deadline"] is not None


def check_mail(client: Any, handler: CatchingHandler, *, pat: str, nat: str, val: str) -> None:
    """Every message sent went out once, and each player got what their part asks for."""
    received = Counter(message["Message-ID"] for message in handler.messages)
    assert max(received.values()) == 1, "a message was delivered twice"
    with Session(client.engine) as session:
        rows = session.exec(select(OutboxMessage).where(OutboxMessage.status == "sent")).all()
    assert {row.message_id for row in rows} <= received.keys()  # each sent row arrived
    kinds = {name: Counter() for name in (pat, nat, val)}
    for row in rows:
        name = row.to_addr.split("@")[0]
        kinds[name][row.kind] += 1
    subjects = {row.message_id: row.subject for row in rows}
    for message in handler.messages:
        assert message["Subject"] == subjects[message["Message-ID"]]
    assert kinds[nat]["reminder"] == 3
    assert kinds[nat]["timed_out"] == 2 and kinds[nat]["removed"] == 1
    assert kinds[val]["vacation_started"] == 1 and kinds[val]["vacation_ended"] == 1
    for name in (pat, val):
        assert kinds[name]["your_turn"] >= 2, kinds[name]
        for kind in ("reminder", "timed_out", "removed"):
            assert kinds[name][kind] == 0, (name, kind)
    assert kinds[pat]["vacation_started"] == kinds[nat]["vacation_started"] == 0
    assert kinds[pat]["game_over"] == kinds[val]["game_over"] == 1
    played_for_nat = [
        row
        for row in rows
        if row.kind == "your_turn" and f"{nat} played" in (row.body or "")
        and "(played on time-out)" in " ".join((row.body or "").split())  # wrapped at 78
    ]  # fmt: skip
    assert played_for_nat, "no turn email marked nat's turn as played on time-out"


def check_record(client: Any, game_id: int, nat: str, tmp_path: Path) -> None:
    record = client.call("GET", f"/api/games/{game_id}/record", nat).text
    lines = record.splitlines()
    assert sum(1 for line in lines if line.endswith(" | timeout")) == 2, record
    assert f"-- {nat} times out" in lines, record
    path = tmp_path / "record.txt"
    path.write_text(record)
    verified = subprocess.run(
        [str(CAFE), "verify", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith("Verified: "), verified.stdout
