"""The whole deployment under a league's load for minutes, and what came out of it counted.

    .venv/bin/python benchmarks/load.py --games 10000 --players 4000 --web 2 --threads 4 \\
        --workers 2 --turn-rate 50 --duration 300 [--fault worker-kill] [--output run.json]

What it starts, from the Procfile's commands: its `release` line (`cafe-server db upgrade`)
on a scratch PostgreSQL database (`--database-url`, dropped first if it is there, kept
afterwards for a look), gunicorn as its `web` line with `--web` processes of `--threads`
threads, `--workers` processes of its `worker` line, and an SMTP sink (aiosmtpd, in this
process) that records every message's arrival time and Message-ID. Every process runs on
the development clock (`CAFE_DEV_CLOCK=1`, `server.clock.devclock`), which this script
moves on by `--clock-rate` seconds every second, so that deadlines, reminders and
time-outs of the seeded games (`benchmarks/load_seed.py`) fall due during the run.

The traffic: Locust, headless, running `benchmarks/load_locust.py` (state, hints, turns
with their version, a few stale, lists with ETags, pages) at `--turn-rate` turns a second
for `--duration` seconds; beside it, every `--mail-in-every` seconds a turn emailed as a
reply, sent over SMTP to one `cafe-server mail-in --listen` process (as a mail server
would relay it; piping each reply into `cafe-server mail-in` instead starts the service
anew per message, seconds of CPU under this load). `--fault` does one thing to the
deployment a third of the way in, `--kills` times `--kill-every` seconds apart:
`worker-kill` (SIGKILL a worker, another each time: its claimed mail is taken over when
its lease, `--lease`, runs out), `web-kill` (SIGKILL a gunicorn process, which its master
replaces: the requests it was serving are cut, and their clients send them again, a turn
with its idempotency key; several kills make sure some turns are cut mid-flight, which
Locust's ledger counts) or `pg-terminate` (`pg_terminate_backend` on every connection of
the deployment: requests and workers reconnect).

After the traffic the clock stops and the workers are given until the outbox and the due
deadlines are settled (at most `--settle` seconds), then `cafe-server games check` and
`league check` run, and `benchmarks/load_report.py` prints the figures against the
targets (and `--output` keeps them as JSON). The machine's load is in the figures too: on
a shared machine, read them with it. `tests/e2e/test_e2e_load.py` runs a short form.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import re
import resource
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path (`benchmarks/server.py`
# would shadow the service's package); the tests' helpers are shared, not copied.
sys.path[0:1] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import psutil  # noqa: E402 (Locust's own dependency)
import requests  # noqa: E402
from aiosmtpd.controller import Controller  # noqa: E402
from deploy_support import procfile_web, wait_healthy  # noqa: E402
from load_report import Clock, due_now, report  # noqa: E402
from load_seed import Roster, seed  # noqa: E402
from smtp_support import free_port  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from server.clock import devclock  # noqa: E402
from server.db import make_engine  # noqa: E402
from server.models import utcnow  # noqa: E402
from server.postbox.addresses import ReplyAddress, reply_address  # noqa: E402

DEFAULT_DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/cafe_load"
SECRET_KEY = "load-test-secret-of-at-least-thirty-two-bytes"
MAIL_DOMAIN = "load.test"
FAULTS = ("worker-kill", "web-kill", "pg-terminate")
#: Sign-in limits out of the way: every client is 127.0.0.1.
UNLIMITED = {
    f"CAFE_{name}": "1000000"
    for name in ("SIGNUPS_PER_CLIENT", "CODE_REQUESTS_PER_CLIENT", "SIGNIN_GUESSES_PER_CLIENT")
}
_MESSAGE_ID = re.compile(rb"^Message-ID:\s*(<[^>]+>)", re.IGNORECASE | re.MULTILINE)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add = parser.add_argument
    add("--games", type=int, default=10_000, help="running games seeded")
    add("--players", type=int, default=4_000, help="players seeded (each with an API token)")
    add("--web", type=int, default=2, help="gunicorn processes (WEB_CONCURRENCY)")
    add("--threads", type=int, default=4, help="threads of each gunicorn process")
    add("--workers", type=int, default=2, help="`cafe-server worker` processes")
    add("--turn-rate", type=float, default=50, help="turns a second Locust aims at")
    add("--users", type=int, default=50, help="Locust users sharing the turn rate")
    add("--duration", type=int, default=300, help="seconds of traffic")
    add(
        "--database-url",
        default=DEFAULT_DATABASE,
        help="the scratch PostgreSQL database to create (dropped first if it exists)",
    )
    add("--output", type=Path, help="write the figures to this JSON file")
    add("--fault", choices=FAULTS, help="what to do to the deployment a third of the way in")
    add("--kills", type=int, default=1, help="times the fault is done (worker-kill: < --workers)")
    add("--kill-every", type=float, default=3, help="seconds between two of the faults")
    add("--seed", type=int, default=1, help="seeds the tables and Locust's choices")
    add("--clock-rate", type=float, default=24, help="development clock seconds per second")
    add("--mail-in-every", type=float, default=2, help="seconds between emailed turns")
    add("--stale", type=float, default=0.02, help="share of rounds sending a stale turn first")
    add("--lease", type=int, default=30, help="seconds a worker owns claimed mail")
    add("--sweep", type=int, default=10, help="seconds between a worker's sweeps")
    add("--settle", type=int, default=180, help="seconds the workers get to settle after")
    add("--folder", type=Path, help="keep the logs and CSV in this folder (None: a temporary one)")
    args = parser.parse_args(argv)
    if args.kills < 1:
        parser.error("--kills must be at least 1")
    if args.fault == "worker-kill" and args.kills >= args.workers:
        parser.error(f"--kills {args.kills} would leave none of the {args.workers} workers")
    kept, named = _kept_databases(), make_url(args.database_url).database
    if named in kept:
        parser.error(
            f"--database-url names {named!r}, which this script would drop; "
            f"name a scratch database instead (not {', '.join(sorted(kept))})"
        )
    return args


def _kept_databases() -> set[str]:
    """The databases `--database-url` may not name, since the run drops and recreates it:
    PostgreSQL's own, and the one the tests create their scratch databases from."""
    kept = {"postgres", "template0", "template1"}
    tests_admin = os.environ.get("CAFE_TEST_DATABASE_URL")
    if tests_admin:
        kept.add(str(make_url(tests_admin).database))
    return kept


# --- the SMTP sink -------------------------------------------------------------------


@dataclass
class Sink:
    """Every message's arrival (time.time()) and Message-ID, in the order they came."""

    arrivals: list[tuple[float, str]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        found = _MESSAGE_ID.search(envelope.original_content or envelope.content)
        self.arrivals.append((time.time(), found.group(1).decode() if found else ""))
        return "250 Message accepted for delivery"


# --- the deployment ------------------------------------------------------------------


@dataclass
class Deployment:
    """The processes of one run."""

    args: argparse.Namespace
    url: str
    folder: Path
    sink: Sink = field(default_factory=Sink)
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    mail_in: subprocess.Popen[bytes] | None = None

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT),
            "CAFE_DATABASE_URL": self.url,
            "CAFE_SECRET_KEY": SECRET_KEY,
            "CAFE_DEV_CLOCK": "1",
            "CAFE_BASE_URL": self.base,
            "CAFE_SMTP_PORT": str(self.smtp_port),
            "CAFE_MAIL_FROM": f"Cafe <cafe@{MAIL_DOMAIN}>",
            "CAFE_MAIL_PER_MINUTE": "0",  # a turn's mail is never held back by the limit
            "CAFE_OUTBOX_LEASE": str(self.args.lease),
            "CAFE_WORKER_SWEEP": str(self.args.sweep),
            "CAFE_WORKER_POLL": "1",
            "CAFE_LOG_LEVEL": "WARNING",
            **UNLIMITED,
        }

    def start(self) -> None:
        self.smtp_port, self.web_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.web_port}"
        self.smtp = Controller(self.sink, hostname="127.0.0.1", port=self.smtp_port)
        self.smtp.start()
        env = self.environment()
        release = procfile_line("release")
        subprocess.run(["sh", "-c", release], env=env, check=True, cwd=ROOT)
        web = procfile_web().replace("--threads 4", f"--threads {self.args.threads}")
        assert f"--threads {self.args.threads}" in web, web
        self.web_log = self.folder / "gunicorn.log"
        self.web = subprocess.Popen(
            ["sh", "-c", f"exec {web}"],
            # the web logs each request with its time in the service (`load_report.service_times`)
            env={**env, "WEB_CONCURRENCY": str(self.args.web), "PORT": str(self.web_port),
                 "CAFE_LOG_LEVEL": "INFO"},
            stdout=self.web_log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        wait_healthy(self.base, self.web, self.web_log)
        self.worker_logs = [self.folder / f"worker{n}.log" for n in range(self.args.workers)]
        self.workers = [
            subprocess.Popen(
                ["sh", "-c", f"exec {procfile_line('worker')}"],
                env=env,
                stderr=log.open("wb"),
                cwd=ROOT,
                start_new_session=True,
            )
            for log in self.worker_logs
        ]
        self.mail_in_port = free_port()
        self.mail_in = subprocess.Popen(
            ["cafe-server", "mail-in", "--listen", f"127.0.0.1:{self.mail_in_port}"],
            env=env, stderr=(self.folder / "mail-in.log").open("wb"), cwd=ROOT,
            start_new_session=True,
        )  # fmt: skip
        wait_listening(self.mail_in_port, self.mail_in)

    def web_processes(self) -> list[psutil.Process]:
        return psutil.Process(self.web.pid).children()

    def stop(self) -> None:
        for worker in self.workers:
            if worker.poll() is None:
                worker.terminate()
        for worker in self.workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        if self.mail_in is not None and self.mail_in.poll() is None:
            self.mail_in.terminate()
            self.mail_in.wait(timeout=30)
        if self.web.poll() is None:
            os.killpg(self.web.pid, signal.SIGTERM)
            self.web.wait(timeout=30)
        self.smtp.stop()


def wait_listening(port: int, process: subprocess.Popen[bytes], within: float = 60) -> None:
    """Until something accepts connections on 127.0.0.1:`port`; SystemExit if `process`
    ends first or `within` seconds pass."""
    give_up = time.monotonic() + within
    while time.monotonic() < give_up:
        if process.poll() is not None:
            raise SystemExit(f"{process.args} ended ({process.returncode}) before listening")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"nothing listened on port {port} within {within:.0f} s")


def procfile_line(name: str) -> str:
    """The Procfile's command for process type `name`."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith(f"{name}:"):
            return line.removeprefix(f"{name}:").strip()
    raise SystemExit(f"the Procfile has no {name} process")


@contextmanager
def scratch_database(url: str) -> Iterator[str]:
    """The database of `url`, created empty (dropped first if an earlier run left it)."""
    target = make_url(url)
    name = target.database
    assert name and re.fullmatch(r"\w+", name), f"a plain database name, not {name!r}"
    admin = create_engine(target.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield target.render_as_string(hide_password=False)
    finally:
        admin.dispose()


# --- beside the traffic ---------------------------------------------------------------


class Beside(threading.Thread):
    """A loop run every `period` seconds until `stop` is set."""

    def __init__(self, period: float, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.period, self.stop = period, stop

    def run(self) -> None:
        while not self.stop.wait(self.period):
            self.step()

    def step(self) -> None:
        raise NotImplementedError


class ClockMover(Beside):
    """Moves the development clock on by `rate` seconds every second; `clock` keeps each
    change (real time, offset), to turn the service's times back into real ones."""

    def __init__(self, engine: Any, rate: float, stop: threading.Event) -> None:
        super().__init__(1.0, stop)
        self.engine, self.rate = engine, rate
        self.clock = Clock([(time.time(), devclock.read_offset(self.engine).total_seconds())])

    def step(self) -> None:
        devclock.advance(self.engine, timedelta(seconds=self.rate))
        self.clock.changes.append((time.time(), devclock.read_offset(self.engine).total_seconds()))


class MailIn(Beside):
    """Every `period` seconds, the player to move in a random game replies to its email with
    the best turn, sent over SMTP to `cafe-server mail-in --listen`; each outcome is its
    answer to the message (`250: applied` expected)."""

    def __init__(
        self, run: Deployment, roster: Roster, rng: random.Random, period: float, stop: Any
    ) -> None:
        super().__init__(period, stop)
        self.run_, self.roster, self.rng = run, roster, rng
        self.by_name = {player["name"]: player for player in roster.players}
        self.outcomes: Counter[str] = Counter()
        self.seconds: list[float] = []

    def step(self) -> None:
        game = self.rng.choice(self.roster.games)
        viewer = self.roster.players[game["seats"][0]]
        path = f"{self.run_.base}/api/games/{game['id']}"
        try:
            state = requests.get(path, headers=_bearer(viewer), timeout=30).json()
            if state.get("status") != "active":
                return
            mover = self.by_name[state["to_move"]]
            hints = requests.get(f"{path}/hints?n=1", headers=_bearer(mover), timeout=30).json()
        except (requests.RequestException, ValueError):
            self.outcomes["no state (web down)"] += 1
            return
        address = reply_address(
            SECRET_KEY, MAIL_DOMAIN, ReplyAddress(game["id"], state["version"], mover["id"])
        )
        reply = EmailMessage()
        reply["From"], reply["To"] = mover["email"], address
        reply["Subject"], reply["Message-ID"] = "Re: your turn", make_msgid(domain="load.test")
        reply.set_content(f"{hints['hints'][0]['turn']}\n")
        began = time.monotonic()
        try:
            with smtplib.SMTP("127.0.0.1", self.run_.mail_in_port, timeout=60) as smtp:
                smtp.ehlo_or_helo_if_needed()
                smtp.mail(mover["email"])
                smtp.rcpt(address)
                code, said = smtp.data(reply.as_bytes())
        except smtplib.SMTPResponseException as error:  # refused: its code and words
            code, said = error.smtp_code, error.smtp_error
        except (OSError, smtplib.SMTPException) as error:
            self.outcomes[f"no answer ({type(error).__name__})"] += 1
            return
        self.seconds.append(time.monotonic() - began)
        self.outcomes[f"{code}: {said.decode(errors='replace').removeprefix('OK ')}"] += 1


def _bearer(player: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {player['token']}"}


class Sampler(Beside):
    """Twice a second: the deployment's connections to the database and what its active
    ones wait for (lock waits show here), for the report."""

    def __init__(self, engine: Any, database: str, stop: threading.Event) -> None:
        super().__init__(0.5, stop)
        self.engine, self.database = engine, database
        self.connections: list[int] = []
        self.waits: Counter[str] = Counter()

    def step(self) -> None:
        with self.engine.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT state, wait_event_type, wait_event, left(query, 60) "
                    "FROM pg_stat_activity WHERE datname = :db AND pid <> pg_backend_pid()"
                ),
                {"db": self.database},
            ).all()
        self.connections.append(len(rows))
        for state, kind, event, query in rows:
            if state == "active" and kind in ("Lock", "LWLock", "IO"):
                self.waits[f"{kind}:{event}: {' '.join(query.split())}"] += 1


def inject(fault: str, run: Deployment, engine: Any, database: str, kill: int) -> dict[str, Any]:
    """Do `fault` to the deployment now, for the `kill`-th time (from 0); what was done."""
    at = time.time()
    if fault == "worker-kill":
        victim = run.workers[kill]
        os.kill(victim.pid, signal.SIGKILL)
        with create_engine(run.url).connect() as connection:  # the rows under a live lease
            claimed = connection.execute(
                text(
                    "SELECT count(*) FROM outbox WHERE status = 'sending' AND claimed_until > now()"
                )
            ).scalar()
        return {"fault": fault, "at": at, "killed": victim.pid, "claimed_then": claimed}
    if fault == "web-kill":
        victim = run.web_processes()[0]
        victim.send_signal(signal.SIGKILL)
        return {"fault": fault, "at": at, "killed": victim.pid}
    with engine.connect() as connection:
        ended = connection.execute(
            text(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = :db AND pid <> pg_backend_pid()"
            ),
            {"db": database},
        ).scalar()
    return {"fault": fault, "at": at, "terminated": ended}


# --- the run ---------------------------------------------------------------------------


def locust(run: Deployment, args: argparse.Namespace, roster_path: Path) -> Path:
    """Run Locust headless for the traffic; the prefix of its CSV files."""
    prefix = run.folder / "locust"
    env = {
        **os.environ,
        "LOAD_ROSTER": str(roster_path),
        "LOAD_LEDGER": str(run.folder / "ledger.json"),
        "LOAD_TURN_RATE": str(args.turn_rate),
        "LOAD_USERS": str(args.users),
        "LOAD_STALE": str(args.stale),
        "LOAD_SEED": str(args.seed),
    }
    command = [
        str(Path(sys.executable).with_name("locust")),
        "-f", str(ROOT / "benchmarks" / "load_locust.py"),
        "--headless", "--host", run.base,
        "--users", str(args.users), "--spawn-rate", str(max(args.users, 1)),
        "--run-time", f"{args.duration}s", "--stop-timeout", "30",
        "--csv", str(prefix), "--only-summary", "--loglevel", "WARNING",
    ]  # fmt: skip
    with (run.folder / "locust.log").open("wb") as log:
        subprocess.run(command, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    return prefix


def settle(engine: Any, limit: float, by: datetime) -> float:
    """Wait until no mail is waiting and no deadline or reminder that came `by` is due still
    (at most `limit` seconds); how long it took."""
    began = time.monotonic()
    query = text(
        "SELECT (SELECT count(*) FROM outbox WHERE status IN ('pending', 'sending')) + "
        "(SELECT count(*) FROM games WHERE status = 'active' AND "
        " (deadline <= :by OR reminder_due <= :by))"
    )
    while time.monotonic() - began < limit:
        with engine.connect() as connection:
            if not connection.execute(query, {"by": by}).scalar():
                break
        time.sleep(1)
    return time.monotonic() - began


def check(run: Deployment, what: str) -> dict[str, Any]:
    """`cafe-server games check` or `league check`: its exit code and last line."""
    done = subprocess.run(
        ["cafe-server", what, "check"],
        capture_output=True, text=True, env=run.environment(), check=False,
    )  # fmt: skip
    lines = (done.stdout or done.stderr).strip().splitlines()
    return {"exit": done.returncode, "said": lines[-1] if lines else ""}


def cpu_seconds(processes: list[psutil.Process]) -> dict[int, float]:
    """Each process's CPU seconds so far, by pid (those that ended are left out)."""
    found = {}
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        found[process.pid] = times.user + times.system
    return found


def spent(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds spent between two `cpu_seconds`: a process begun since counts whole."""
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def roles_of(run: Deployment) -> dict[str, list[psutil.Process]]:
    """The processes of each part of the deployment now."""
    return {
        "web": [psutil.Process(run.web.pid), *run.web_processes()],
        "workers": [psutil.Process(w.pid) for w in run.workers if w.poll() is None],
        "mail-in": [psutil.Process(run.mail_in.pid)] if run.mail_in else [],
        "postgres": [p for p in psutil.process_iter(["name"]) if p.info["name"] == "postgres"],
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the deployment under load as `argv` says; the figures (printed, and `--output`)."""
    args = parse(argv)
    with (
        tempfile.TemporaryDirectory(prefix="cafe-load-") as scratch,
        scratch_database(args.database_url) as url,
    ):
        folder = args.folder or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        run = Deployment(args, url, folder)
        engine = make_engine(url)
        admin = create_engine(make_url(url).set(database="postgres"))
        run.start()
        try:
            measured = measure(run, engine, admin)
        finally:
            run.stop()
        # on the database at rest: a game changing under `games check` would be reported
        measured["checks"] = {what: check(run, what) for what in ("games", "league")}
        figures = report(
            engine=engine,
            args=vars(args),
            sink=run.sink.arrivals,
            ledger=json.loads((folder / "ledger.json").read_text()),
            logs={"web": run.web_log, "workers": run.worker_logs},
            **measured,
        )
        engine.dispose()
        admin.dispose()
    if args.output:
        args.output.write_text(json.dumps(figures, indent=2, default=str))
    return figures


def measure(run: Deployment, engine: Any, admin: Any) -> dict[str, Any]:
    """Seed, drive the traffic with the clock, the emailed turns, the sampler and the fault
    beside it, and let the workers settle; what `report` needs besides."""
    args, database = run.args, str(make_url(run.url).database)
    rng = random.Random(args.seed)
    began = time.monotonic()
    roster = seed(engine, players=args.players, games=args.games, now=_now(engine), rng=rng)
    seeded = time.monotonic() - began
    roster.save(run.folder / "roster.json")
    print(f"seeded {args.games} games, {args.players} players in {seeded:.1f} s")
    stop = threading.Event()
    mover = ClockMover(engine, args.clock_rate, stop)
    mail_in = MailIn(run, roster, rng, args.mail_in_every, stop)
    sampler = Sampler(admin, database, stop)
    scans = table_scans(engine)
    faults: list[dict[str, Any]] = []
    if args.fault:
        act = functools.partial(inject, args.fault, run, admin, database)
        for kill in range(args.kills):
            at = args.duration / 3 + kill * args.kill_every
            threading.Timer(at, lambda kill=kill: faults.append(act(kill))).start()
    for thread in (mover, mail_in, sampler):
        thread.start()
    usage = Usage(run)
    started = time.time()
    prefix = locust(run, args, run.folder / "roster.json")
    ended = time.time()
    stop.set()
    mover.join()
    stopped = _now(engine)  # what was due by now, the workers have had the settling for
    machine = usage.since(run)
    settled = settle(engine, args.settle, stopped)
    time.sleep(2 * args.sweep + 2)  # the workers' next sweeps find nothing further
    return {
        "due": due_now(engine, stopped),
        "started": started,
        "ended": ended,
        "clock": mover.clock,
        "prefix": prefix,
        "mail_in": mail_in,
        "sampler": sampler,
        "machine": machine,
        "faults": faults,
        "settled": settled,
        "seeded": seeded,
        "tables": table_scans(engine, scans),
    }


class Usage:
    """CPU time spent from its making on, by part of the deployment and in all."""

    def __init__(self, run: Deployment) -> None:
        self.roles = {role: cpu_seconds(ps) for role, ps in roles_of(run).items()}
        self.children = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.machine = psutil.cpu_times()

    def since(self, run: Deployment) -> dict[str, Any]:
        cpu = {role: spent(self.roles[role], cpu_seconds(ps)) for role, ps in roles_of(run).items()}
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu["locust"] = (
            children.ru_utime + children.ru_stime - self.children.ru_utime - self.children.ru_stime
        )
        machine = psutil.cpu_times()
        busy = _busy(machine) - _busy(self.machine)
        idle = _idle(machine) - _idle(self.machine)
        return {
            "cores": psutil.cpu_count(),
            "busy_share": round(busy / (busy + idle), 3) if busy + idle else 0.0,
            "cpu_seconds": {role: round(seconds, 1) for role, seconds in cpu.items()},
            "load_average": os.getloadavg(),
        }


def _now(engine: Any) -> datetime:
    """The development clock's time (this process does not run on it)."""
    return utcnow() + devclock.read_offset(engine)


def _idle(times: Any) -> float:
    return times.idle + getattr(times, "iowait", 0.0)


def _busy(times: Any) -> float:
    return sum(times) - _idle(times)


def table_scans(engine: Any, before: dict[str, Any] | None = None) -> dict[str, Any]:
    """Sequential and index scans, and rows read by them, of each table (since `before`)."""
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT relname, seq_scan, seq_tup_read, coalesce(idx_scan, 0), "
                "coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables"
            )
        ).all()
    now = {name: list(values) for name, *values in rows}
    if before is None:
        return now
    keys = ("seq_scan", "seq_rows", "idx_scan", "idx_rows")
    found = {}
    for name, values in now.items():
        earlier = before.get(name, [0] * len(keys))
        change = [v - b for v, b in zip(values, earlier, strict=True)]
        if any(change):
            found[name] = dict(zip(keys, change, strict=True))
    return found


if __name__ == "__main__":
    main()
