"""Issue 21's attack, rerun against a production-like deployment; prints its figures.

The deployment: a scratch PostgreSQL database (`--postgres`, or `CAFE_TEST_DATABASE_URL`),
gunicorn started by the Procfile's `web` line (`server/gunicorn_config.py`, 2 workers × 4
threads) behind nginx with `deploy/nginx.conf` (`tests/deploy_support.py`; gunicorn believes
nginx's `X-Forwarded-For`: `CAFE_TRUSTED_PROXIES=1`), two `cafe-server worker` processes
with the per-recipient limit on, an SMTP sink that records every message (Message-ID,
recipient, arrival), and the development clock (`CAFE_DEV_CLOCK=1`) in every process. All
traffic goes through nginx, each client from an address of its own in 127.0.0.0/8 (the
kernel lets a socket bind any of them), which nginx forwards as the client's. Players sign
in as people do, with the code or link of the email the workers delivered to the sink.

The measurements, in this order, on one deployment:

1. *Sign-in under attack* (the service's default limits): `--guesses` wrong short codes
   from `--addresses` addresses, a tenth at the owner's account and the rest at others';
   then another player and the owner each ask for a sign-in email and sign in: seconds
   until each succeeds (target < 60 s). The owner's short code is closed for the day by
   then (the per-account limit, by design) and the link signs her in.
2. *Double plays*: `--races` pairs of turns sent at once by the mover for the same
   version (two games at a time): pairs where both were accepted (target 0), and turns
   accepted against the turns logged.
3. *Two workers*: four players, each mailed every turn (`others_turns`), play 120 games
   for `--mail-seconds` while both workers deliver (the sink takes 10 ms a message); then
   until the outbox is settled. Messages received; Message-IDs received twice and events
   (kind, game, version, seat) sent twice over the whole run (target 0); "the database
   cannot be reached" (how a deadlock used to be logged), tracebacks and exits of the
   workers (target 0). The lease is `--lease` seconds (the default 300 would leave a
   batch left behind unsent past the run), and `--per-minute` messages a minute per
   recipient keeps the limit on without holding this mail back.
4. *Private-game scan*: a league, a finished public rated game and a finished private
   game; every list endpoint and page (`test_private_games.scanned_paths`) read signed
   out, by a stranger and by a player, and every GET route of the private game itself by
   the first two: answers that name the private game to someone who is not its player, or
   do not answer its routes as a missing game's 404 (target 0).

Then gunicorn is restarted with the per-client and per-account limits out of the way (they
count both kinds of request alike; this measures the rest):

5. *Timing*: `--samples` pairs each of `POST /api/players` (registered vs new address),
   `/api/signin-codes` and `/api/tokens` (a wrong code; each guess from an address of its
   own) through nginx, as `tests/server/test_signin_timing.py` pairs them: means, medians,
   10 %-trimmed means, their ratio, and the Wilcoxon signed-rank test's p (targets: within
   10 %, p ≥ 0.001).
6. *Hostile input*: every path integer past the database's range
   (`test_ranges.oversized`); for every JSON body of the published schema malformed
   JSON, and NUL, an unpaired surrogate and huge or odd numbers in each field; every web
   form posted with such values (and bytes that are not UTF-8) in every field the pages
   show: 5xx answers (target 0), and tracebacks in gunicorn's log.

    .venv/bin/python benchmarks/attack.py [--postgres URL] [--races 300] [--mail-seconds 60]
        [--guesses 1000] [--addresses 334] [--samples 200] [--lease 20] [--keep]
        [--only signin,races,mail,scan,timing,hostile]

About five minutes on two cores; `--races 1000 --mail-seconds 300 --samples 1000` for
longer runs. Not part of the test suite (`tests/test_attack_benchmark.py` only checks that
it loads and reads its arguments).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.client
import itertools
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on sys.path (`benchmarks/server.py`
# would shadow the service's package); the tests' helpers are shared, not copied.
# test_ranges and test_private_games live in the folders of their packages
TEST_FOLDERS = ("", "e2e", "server", "server/api", "server/games")
sys.path[0:1] = [str(ROOT), *(str(ROOT / "tests" / part) for part in TEST_FOLDERS)]

from deploy_support import nginx_binary, start_nginx, start_web, stop  # noqa: E402
from e2e_support import E2E_SECRET_KEY, free_port, worker_environment  # noqa: E402
from league import league_support  # noqa: E402
from postgres_support import scratch_postgres  # noqa: E402
from server_support import csrf_of  # noqa: E402
from sqlalchemy import func  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402
from test_private_games import MISSING, mentions, scanned_paths  # noqa: E402
from test_ranges import oversized  # noqa: E402
from test_signin_timing import signed_rank_p, timed, trimmed_mean  # noqa: E402

from server.app import create_app  # noqa: E402
from server.db import make_engine  # noqa: E402
from server.devmail import CatchingHandler, start_catcher  # noqa: E402
from server.jobs import outbox  # noqa: E402
from server.models import OutboxMessage, TurnRecord  # noqa: E402
from server.schemas.fields import MAX_INT  # noqa: E402
from server.signin import CODE_DIGITS, LINK_CODE_PATTERN, LINK_PATH  # noqa: E402

#: Limits out of the way for the timing and the hostile input (the defaults otherwise).
UNLIMITED = {
    f"CAFE_{name}": "1000000"
    for name in (
        "SIGNUPS_PER_CLIENT",
        "SIGNUPS_PER_HOUR",
        "CODE_REQUESTS_PER_CLIENT",
        "SIGNIN_GUESSES_PER_CLIENT",
        "SIGNIN_GUESSES_PER_ACCOUNT",
    )
}
#: The measurements, in the order they are made (`--only`).
STEPS = ("signin", "races", "mail", "scan", "timing", "hostile")
#: How long the sink takes over a message (a real SMTP server takes its time, so mail
#: queues up and the workers claim full batches).
SMTP_DELAY = 0.01
#: How long a player waits for a sign-in email at most.
MAIL_WAIT = 60


@dataclass
class Figure:
    """One line of the printed table."""

    what: str
    value: str
    target: str = ""


# --- clients -------------------------------------------------------------------------


@dataclass
class Answer:
    """An HTTP answer, shaped as the tests' helpers read one (`.status_code`, `.json`)."""

    status_code: int
    text: str
    content_type: str

    @property
    def json(self) -> Any:
        if not self.content_type.startswith("application/json"):
            return None
        try:
            return json.loads(self.text)
        except ValueError:
            return None


class Http:
    """One kept-alive connection to nginx from the loopback address `source`, with the
    cookies the service set on it (a browser's jar, by name only)."""

    def __init__(self, base: str, source: str = "127.0.0.1") -> None:
        host, port = base.removeprefix("http://").split(":")
        self.host, self.port, self.source = host, int(port), source
        self.connection: http.client.HTTPConnection | None = None
        self.cookies: dict[str, str] = {}

    def request(
        self,
        method: str,
        path: str,
        token: str | None = None,
        *,
        json_body: Any = None,
        raw: bytes | None = None,
        form: dict[str, Any] | None = None,
        content_type: str = "application/json",
    ) -> Answer:
        headers = {"Host": f"{self.host}:{self.port}"}
        body = raw
        if json_body is not None:
            body = json.dumps(json_body).encode()
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            headers["Content-Type"] = content_type
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        reused = self.connection is not None
        try:
            response = self._send(method, path, body, headers)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            if not reused:
                raise
            self.close()  # nginx closed the idle kept-alive connection: a new one
            response = self._send(method, path, body, headers)
        return response

    def _send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> Answer:
        if self.connection is None:
            self.connection = http.client.HTTPConnection(
                self.host, self.port, timeout=60, source_address=(self.source, 0)
            )
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        text = response.read().decode(errors="replace")
        for cookie in response.headers.get_all("Set-Cookie") or []:
            name, _, value = cookie.split(";", 1)[0].partition("=")
            self.cookies[name.strip()] = value.strip()
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        return Answer(response.status, text, response.getheader("Content-Type", ""))

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class Sink(CatchingHandler):
    """The SMTP server: keeps every message, with its arrival time, taking `SMTP_DELAY`."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: dict[str, float] = {}  # Message-ID: when it first came

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(SMTP_DELAY)
        answer = await super().handle_DATA(server, session, envelope)
        self.arrivals.setdefault(str(self.messages[-1]["Message-ID"]), time.time())
        return answer

    def signin_codes(self, email: str, after: int) -> tuple[str, str]:
        """The short code and the link's code of the first sign-in email to `email` among
        the messages after the first `after`, once it has come."""
        deadline = time.monotonic() + MAIL_WAIT
        while time.monotonic() < deadline:
            for message in self.messages[after:]:
                if str(message["To"]).endswith(f"<{email}>") or str(message["To"]) == email:
                    found = _codes(message)
                    if found is not None:
                        return found
            time.sleep(0.05)
        raise RuntimeError(f"no sign-in email came for {email} in {MAIL_WAIT} s")


def _codes(message: EmailMessage) -> tuple[str, str] | None:
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""
    short = re.search(rf"^\s+(\d{{{CODE_DIGITS}}})\s*$", text, re.MULTILINE)
    link = re.search(rf"{re.escape(LINK_PATH)}({LINK_CODE_PATTERN})", text)
    return (short.group(1), link.group(1)) if short and link else None


# --- the deployment ------------------------------------------------------------------


@dataclass
class Deployment:
    """The processes of the deployment, and clients of it."""

    url: str
    folder: Path
    per_minute: int
    lease: int
    sink: Sink = field(default_factory=Sink)
    early_exits: list[int] | None = None
    addresses: Iterator[str] = field(
        default_factory=lambda: (f"127.1.{n // 250}.{n % 250 + 1}" for n in itertools.count())
    )

    def start(self) -> None:
        nginx = nginx_binary()
        if nginx is None:
            raise SystemExit("nginx is not installed: apt-get install -y nginx")
        smtp_port, self.web_port, nginx_port = free_port(), free_port(), free_port()
        self.base = f"http://127.0.0.1:{nginx_port}"
        self.smtp = start_catcher(self.sink, host="127.0.0.1", port=smtp_port)
        common = {"CAFE_BASE_URL": self.base}
        self.web_env = {
            **os.environ,
            **common,
            "CAFE_DATABASE_URL": self.url,
            "CAFE_SECRET_KEY": E2E_SECRET_KEY,
            "CAFE_TRUSTED_PROXIES": "1",
            "CAFE_DEV_CLOCK": "1",
            "CAFE_LOG_LEVEL": "WARNING",
        }
        self.web_log = self.folder / "gunicorn.log"
        self.restart_web({})
        (self.folder / "nginx").mkdir()
        _, self.nginx = start_nginx(
            nginx, self.folder / "nginx", nginx_port, f"127.0.0.1:{self.web_port}"
        )
        env = {
            **worker_environment(self.url, smtp_port),
            **common,
            "CAFE_MAIL_PER_MINUTE": str(self.per_minute),
            "CAFE_OUTBOX_LEASE": str(self.lease),
            "CAFE_LOG_LEVEL": "INFO",
        }
        command = [str(Path(sys.executable).with_name("cafe-server")), "worker"]
        self.worker_logs = [self.folder / f"worker{n}.log" for n in (1, 2)]
        self.workers = [
            subprocess.Popen(command, env=env, stderr=log.open("wb"), cwd=ROOT)
            for log in self.worker_logs
        ]
        self.engine = make_engine(self.url)
        self.app = create_app(
            {"DATABASE_URL": self.url, "SECRET_KEY": E2E_SECRET_KEY, "LOG_LEVEL": "WARNING"}
        )

    def restart_web(self, settings: dict[str, str]) -> None:
        """(Re)start gunicorn with further `settings`."""
        if getattr(self, "web", None) is not None:
            stop(self.web)
        _, self.web = start_web({**self.web_env, **settings}, self.web_port, self.web_log)

    def stop_workers(self) -> None:
        """SIGTERM both workers (once), noting those that had ended already."""
        if self.early_exits is not None:
            return
        self.early_exits = [
            worker.returncode for worker in self.workers if worker.poll() is not None
        ]
        for worker in self.workers:
            worker.terminate()
        for worker in self.workers:
            worker.wait(timeout=30)

    def close(self) -> None:
        self.stop_workers()
        stop(self.nginx)
        stop(self.web)
        self.smtp.stop()
        self.engine.dispose()

    def client(self) -> Client:
        """A client from an address nobody else uses."""
        return Client(self, next(self.addresses))


class Client:
    """A person at one address: the API with a token, the pages with cookies; the shape of
    the tests' `Api` (`call`, `register`), so the tests' league helpers drive it."""

    def __init__(self, deployment: Deployment, source: str) -> None:
        self.deployment = deployment
        self.http = Http(deployment.base, source)

    def call(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Answer:
        return self.http.request(method, path, token, json_body=kwargs.get("json"))

    def register(self, name: str) -> str:
        """Register `name` (`name@example.com`, from an address of its own, as the
        per-client limit wants) and sign in with the emailed code; the token."""
        email = f"{name}@example.com"
        before = len(self.deployment.sink.messages)
        newcomer = self.deployment.client()
        answer = newcomer.call("POST", "/api/players", json={"name": name, "email": email})
        assert answer.status_code == 202, answer.text
        code, _ = self.deployment.sink.signin_codes(email, before)
        answer = newcomer.call("POST", "/api/tokens", json={"email": email, "code": code})
        assert answer.status_code == 201, answer.text
        return answer.json["token"]

    def web_sign_in(self, email: str) -> None:
        """Sign in on this client's cookies, as the sign-in page does."""
        form = self.http.request("GET", "/signin").text
        before = len(self.deployment.sink.messages)
        data = {"csrf": csrf_of(form), "email": email, "next": "/"}
        sent = self.http.request("POST", "/signin", form=data)
        assert sent.status_code == 200, sent.text
        code, _ = self.deployment.sink.signin_codes(email, before)
        data = {"csrf": csrf_of(sent.text), "email": email, "code": code}
        done = self.http.request("POST", "/signin/code", form=data)
        assert done.status_code == 303, done.text


@contextmanager
def deployment(args: argparse.Namespace) -> Iterator[Deployment]:
    with (
        tempfile.TemporaryDirectory(prefix="cafe-attack-") as folder,
        scratch_postgres(args.postgres, "attack") as url,
    ):
        running = Deployment(url, Path(folder), args.per_minute, args.lease)
        running.start()
        try:
            yield running
        finally:
            running.close()
            if args.keep:
                kept = Path(tempfile.mkdtemp(prefix="cafe-attack-logs-"))
                for log in Path(folder).glob("*.log"):
                    (kept / log.name).write_bytes(log.read_bytes())
                print(f"logs kept in {kept}")


# --- the measurements ----------------------------------------------------------------


def sign_in_under_attack(run: Deployment, guesses: int, addresses: int) -> list[Figure]:
    """Measurement 1."""
    setup = run.client()
    setup.register("owner")
    setup.register("other")

    def guess(number: int) -> int:
        spot = number % addresses
        source = f"127.2.{spot // 250}.{spot % 250 + 1}"
        target = "owner@example.com" if number % 10 == 0 else f"victim{number}@example.com"
        body = {"email": target, "code": f"{(number * 7919) % 10**CODE_DIGITS:0{CODE_DIGITS}d}"}
        return Http(run.base, source).request("POST", "/api/tokens", json_body=body).status_code

    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        statuses = Counter(pool.map(guess, range(guesses)))
    attack = time.monotonic() - started

    def signs_in(email: str, link: bool) -> tuple[float, int]:
        began = time.monotonic()
        person = run.client()
        before = len(run.sink.messages)
        asked = person.call("POST", "/api/signin-codes", json={"email": email})
        assert asked.status_code == 202, asked.text
        code, link_code = run.sink.signin_codes(email, before)
        body = {"email": email, "code": link_code if link else code}
        answer = person.call("POST", "/api/tokens", json=body)
        return time.monotonic() - began, answer.status_code

    other = signs_in("other@example.com", link=False)
    owner_code = signs_in("owner@example.com", link=False)
    owner_link = signs_in("owner@example.com", link=True)
    answers = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()))
    return [
        Figure(f"{guesses} wrong guesses from {addresses} addresses", f"{answers}, {attack:.1f} s"),
        Figure("another player, short code: s to signed in", _signin(other), "< 60 s"),
        Figure("owner (attacked), short code", _signin(owner_code), "429: closed for the day"),
        Figure("owner (attacked), sign-in link: s to signed in", _signin(owner_link), "< 60 s"),
    ]


def _signin(result: tuple[float, int]) -> str:
    seconds, status = result
    return f"{seconds:.2f} s ({status})"


def double_plays(run: Deployment, races: int, lanes: int = 2) -> list[Figure]:
    """Measurement 2."""
    setup = run.client()
    tokens = {name: setup.register(name) for name in ("racer", "rival")}
    outcomes: Counter[tuple[int, int]] = Counter()
    accepted: Counter[int] = Counter()
    lock = threading.Lock()

    def lane(pairs: int) -> None:
        api = run.client()
        senders = [Http(run.base, api.http.source), Http(run.base, api.http.source)]
        game = _new_game(api, tokens)
        for _ in range(pairs):
            state = api.call("GET", f"/api/games/{game}", tokens["racer"]).json
            if state["status"] != "active":
                game = _new_game(api, tokens)
                state = api.call("GET", f"/api/games/{game}", tokens["racer"]).json
            mover = tokens[state["to_move"]]
            hints = api.call("GET", f"/api/games/{game}/hints?n=2", mover).json["hints"]
            turns = [hints[0]["turn"], hints[-1]["turn"]]
            path, barrier = f"/api/games/{game}/turns", threading.Barrier(2)
            bodies = [{"turn": turn, "version": state["version"]} for turn in turns]
            results = [0, 0]
            threads = [
                threading.Thread(
                    target=_race, args=(senders[i], path, mover, bodies[i], barrier, results, i)
                )
                for i in (0, 1)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            with lock:
                outcomes[tuple(sorted(results))] += 1  # type: ignore[index]
                accepted[game] += results.count(201)

    with ThreadPoolExecutor(lanes) as pool:
        list(pool.map(lane, [races // lanes + (i < races % lanes) for i in range(lanes)]))
    with Session(run.engine) as session:
        logged = {
            game: session.exec(
                select(func.count()).select_from(TurnRecord).where(TurnRecord.game_id == game)
            ).one()
            for game in accepted
        }
    answers = ", ".join(f"{count} × {a}/{b}" for (a, b), count in sorted(outcomes.items()))
    return [
        Figure(f"{races} pairs of turns for one version", answers),
        Figure("double plays (both accepted)", str(outcomes[(201, 201)]), "0"),
        Figure(
            "turns accepted / turns logged",
            f"{sum(accepted.values())} / {sum(logged.values())}",
            "equal",
        ),
    ]


def _race(
    http: Http,
    path: str,
    token: str,
    body: dict[str, Any],
    barrier: threading.Barrier,
    results: list[int],
    index: int,
) -> None:
    """One of a race's two turns: sent the moment the other is ready too."""
    barrier.wait()
    results[index] = http.request("POST", path, token, json_body=body).status_code


def _new_game(api: Client, tokens: dict[str, str]) -> int:
    """A started two-player game of `tokens`' players (the first creates it)."""
    first, *others = tokens
    game = api.call("POST", "/api/games", tokens[first], json={"seats": len(tokens)}).json["id"]
    for name in others:
        assert api.call("POST", f"/api/games/{game}/join", tokens[name]).status_code == 200
    assert api.call("POST", f"/api/games/{game}/start", tokens[first]).status_code == 200
    return game


def two_workers(run: Deployment, seconds: float, lease: int) -> list[Figure]:
    """Measurement 3."""
    names = ("mia", "ned", "ola", "pim")
    setup = run.client()
    tokens = {name: setup.register(name) for name in names}
    for token in tokens.values():
        setup.call("PATCH", "/api/me/preferences", token, json={"others_turns": True})
    tables = itertools.cycle([names, names[:2], names[2:], names[1:]])
    games = [_new_game(setup, {n: tokens[n] for n in next(tables)}) for _ in range(120)]
    before = len(run.sink.messages)
    turns, end = 0, time.monotonic() + seconds
    while time.monotonic() < end:
        for index, game in enumerate(games):
            state = setup.call("GET", f"/api/games/{game}", tokens[names[0]]).json
            if state["status"] != "active":
                games[index] = _new_game(setup, {n: tokens[n] for n in next(tables)})
                continue
            mover = tokens[state["to_move"]]
            hint = setup.call("GET", f"/api/games/{game}/hints?n=1", mover).json["hints"][0]
            body = {"turn": hint["turn"], "version": state["version"]}
            assert (
                setup.call("POST", f"/api/games/{game}/turns", mover, json=body).status_code == 201
            )
            turns += 1
    played = time.monotonic()
    deadline = played + 60 + 2 * lease  # a batch left behind is sent again after its lease
    while _unsettled(run) and time.monotonic() < deadline:
        time.sleep(0.2)
    settled = time.monotonic() - played
    arrived = {str(message["Message-ID"]) for message in run.sink.messages[before:]}
    with Session(run.engine) as session:
        queued = session.exec(
            select(OutboxMessage.message_id, OutboxMessage.created_at).where(
                col(OutboxMessage.message_id).in_(arrived)
            )
        ).all()
    delays = sorted(run.sink.arrivals[mid] - _utc(created).timestamp() for mid, created in queued)
    return [
        Figure(
            f"game mail to 4 players, {seconds:.0f} s of play",
            f"{turns} turns, {len(arrived)} messages received, settled {settled:.0f} s later",
        ),
        Figure(
            "queued → received, median / 90th percentile",
            f"{statistics.median(delays):.1f} s / {delays[len(delays) * 9 // 10]:.1f} s",
        ),
        Figure("outbox afterwards", str(outbox.counts(run.engine))),
    ]


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _unsettled(run: Deployment) -> int:
    with Session(run.engine) as session:
        return session.exec(
            select(func.count())
            .select_from(OutboxMessage)
            .where(col(OutboxMessage.status).in_(("pending", "sending")))
        ).one()


def mail_over_the_run(run: Deployment) -> list[Figure]:
    """Measurement 3, over everything the workers sent in the run: stops them first."""
    run.stop_workers()
    received = Counter(str(message["Message-ID"]) for message in run.sink.messages)
    with Session(run.engine) as session:
        sent = session.exec(
            select(OutboxMessage.message_id).where(OutboxMessage.status == "sent")
        ).all()
        events = session.exec(
            select(func.count()).select_from(
                select(OutboxMessage.kind)
                .where(OutboxMessage.status == "sent", col(OutboxMessage.game_id).is_not(None))
                .group_by(
                    OutboxMessage.kind,
                    OutboxMessage.game_id,
                    OutboxMessage.version,
                    OutboxMessage.seat,
                )
                .having(func.count() > 1)
                .subquery()
            )
        ).one()
    logs = [log.read_text(errors="replace") for log in run.worker_logs]
    return [
        Figure(
            "messages received / distinct Message-IDs / marked sent",
            f"{sum(received.values())} / {len(received)} / {len(sent)}",
        ),
        Figure(
            "Message-IDs received more than once",
            str(sum(1 for count in received.values() if count > 1)),
            "0",
        ),
        Figure(
            "sent by worker 1 / worker 2 (their logs)",
            " / ".join(str(len(re.findall(r"message \d+ \(\w+\) sent", t))) for t in logs),
        ),
        Figure("events (kind, game, version, seat) sent twice", str(events), "0"),
        Figure("received but not marked sent", str(len(set(received) - set(sent))), "0"),
        Figure(
            '"database cannot be reached" / "deadlock" in worker logs',
            f"{sum(t.count('cannot be reached') for t in logs)} / "
            f"{sum(t.lower().count('deadlock') for t in logs)}",
            "0 / 0",
        ),
        Figure(
            "worker tracebacks / exits before the end / exit codes on SIGTERM",
            f"{sum(t.count('Traceback') for t in logs)} / {len(run.early_exits)} / "
            f"{[worker.returncode for worker in run.workers]}",
            "0 / 0 / [0, 0]",
        ),
    ]


def private_scan(run: Deployment) -> list[Figure]:
    """Measurement 4."""
    setup = run.client()
    names = ["ann", "bob", "cid", "dan"]
    tokens = league_support.opened(setup, names, game_size=2, division_size=4)
    league_support.start(setup, tokens, 1)
    public = setup.call("POST", "/api/games", tokens["ann"], json={"seats": 2, "rated": True}).json
    body = {"seats": 2, "private": True, "invite": ["bob"]}
    private = setup.call("POST", "/api/games", tokens["ann"], json=body).json
    for game in (public, private):
        for action, who in (("join", "bob"), ("start", "ann"), ("resign", "bob")):
            answer = setup.call("POST", f"/api/games/{game['id']}/{action}", tokens[who])
            assert answer.status_code == 200, answer.text
    pid = private["id"]
    finished_at = setup.call("GET", f"/api/games/{pid}", tokens["ann"]).json["finished_at"]
    eve = setup.register("eve")
    viewers: dict[str, tuple[Client, str | None]] = {"signed out": (run.client(), None)}
    for name, token in (("stranger", eve), ("player", tokens["ann"])):
        viewer = run.client()
        viewer.web_sign_in(f"{'eve' if name == 'stranger' else 'ann'}@example.com")
        viewers[name] = (viewer, token)
    paths = scanned_paths(run.app)
    own = [
        rule.rule
        for rule in run.app.url_map.iter_rules()
        if "GET" in rule.methods and rule.arguments == {"game_id"}
    ]
    leaks, shown, errors = [], 0, 0
    for name, (viewer, token) in viewers.items():
        for path in paths:
            answer = viewer.http.request("GET", path, token)
            errors += answer.status_code >= 500
            seen = mentions(answer.text, answer.json, pid, finished_at)
            if seen and name != "player":
                leaks.append((name, path))
            shown += seen and name == "player"
        if name == "player":
            continue
        for rule in own:  # answered as a game nobody has is
            path = rule.replace("<int:game_id>", str(pid))
            answer = viewer.http.request("GET", path, token)
            missing = viewer.http.request("GET", rule.replace("<int:game_id>", str(MISSING)), token)
            if _error(answer) != _error(missing):
                leaks.append(
                    (name, f"{path}: {_error(answer)}, a missing game's {_error(missing)}")
                )
    return [
        Figure(
            f"{len(paths)} list paths × 3 viewers, {len(own)} private-game routes × 2",
            f"{len(paths) * 3 + len(own) * 2} requests, {errors} × 5xx",
        ),
        Figure("private game shown to a stranger or signed out", str(len(leaks)), "0"),
        Figure("... and shown to its player (the scan sees it)", f"on {shown} paths", "> 0"),
    ] + [Figure("  leak", f"{who}: {path}") for who, path in leaks[:10]]


def _error(answer: Answer) -> tuple[int, Any]:
    """What an answer says, but for the game it names: its status and error code."""
    return answer.status_code, (answer.json or {}).get("error")


def timing(run: Deployment, samples: int) -> list[Figure]:
    """Measurement 5: gunicorn restarted with `UNLIMITED` (it stays so)."""
    run.restart_web(UNLIMITED)
    setup = run.client()
    setup.register("tim")
    numbers = itertools.count()
    addresses = (f"127.4.{n // 250}.{n % 250 + 1}" for n in itertools.count())
    http = Http(run.base, "127.3.0.1")

    def post(
        path: str, body: Callable[[int], dict[str, str]], fresh: bool = False
    ) -> Callable[[], int]:
        def send() -> int:
            client = Http(run.base, next(addresses)) if fresh else http
            status = client.request("POST", path, json_body=body(next(numbers))).status_code
            if fresh:
                client.close()
            return status

        return send

    wrong = "0" * CODE_DIGITS
    cases = {
        "POST /api/players": (
            {
                "registered": post(
                    "/api/players", lambda n: {"name": f"t{n}", "email": "tim@example.com"}
                ),
                "new": post(
                    "/api/players", lambda n: {"name": f"t{n}", "email": f"new{n}@example.com"}
                ),
            },
            202,
        ),
        "POST /api/signin-codes": (
            {
                "registered": post("/api/signin-codes", lambda _: {"email": "tim@example.com"}),
                "unknown": post("/api/signin-codes", lambda _: {"email": "zed@example.com"}),
            },
            202,
        ),
        "POST /api/tokens (wrong code)": (
            {
                "registered": post(
                    "/api/tokens", lambda _: {"email": "tim@example.com", "code": wrong}, True
                ),
                "unknown": post(
                    "/api/tokens", lambda _: {"email": "zed@example.com", "code": wrong}, True
                ),
            },
            401,
        ),
    }
    figures = []
    for what, (kinds, expected) in cases.items():
        times = timed(kinds, expected, seed=21, samples=samples)
        (one, first), (other, second) = times.items()
        ms = {kind: [t * 1000 for t in values] for kind, values in times.items()}
        means = {kind: statistics.fmean(v) for kind, v in ms.items()}
        medians = {kind: statistics.median(v) for kind, v in ms.items()}
        trimmed = {kind: trimmed_mean(v) for kind, v in ms.items()}
        ratio = max(trimmed.values()) / min(trimmed.values())
        p = signed_rank_p(first, second)
        figures.append(
            Figure(
                f"{what}: {one} / {other}, ms",
                f"mean {means[one]:.1f} / {means[other]:.1f}, median {medians[one]:.1f} / "
                f"{medians[other]:.1f}, trimmed {trimmed[one]:.1f} / {trimmed[other]:.1f} "
                f"(× {ratio:.3f}), Wilcoxon p = {p:.2g}",
                "≤ × 1.10, p ≥ 0.001",
            )
        )
    return figures


def hostile(run: Deployment) -> list[Figure]:
    """Measurement 6 (gunicorn runs with `UNLIMITED`)."""
    setup = run.client()
    token = setup.register("hal")
    player = run.client()
    player.web_sign_in("hal@example.com")
    csrf = csrf_of(player.http.request("GET", "/").text)
    game = _new_game(setup, {"hal": token, "ivy": setup.register("ivy")})
    counted: Counter[str] = Counter()
    statuses: Counter[int] = Counter()
    failures: list[str] = []

    def send(what: str, method: str, path: str, **body: Any) -> None:
        answer = player.http.request(method, path, token, **body)
        counted[what] += 1
        statuses[answer.status_code] += 1
        if answer.status_code >= 500:
            failures.append(f"{method} {path} {str(body)[:80]}: {answer.status_code}")

    for method, path in oversized(run.app):
        if path.startswith("/api/"):
            send("path numbers", method, path, json_body={"turn": "bar USm", "version": 1})
        else:
            send("path numbers", method, path, form={"csrf": csrf, "turn": "bar USm", "version": 1})
    spec = player.http.request("GET", "/api/openapi.json").json
    values = {"game_id": game, "slug": "tuesday", "number": 1, "division": 1, "token_id": 1}
    for template, operations in spec["paths"].items():
        path = re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), 1)), template)
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            schema = _resolve(spec, content["application/json"].get("schema", {}))
            fields = schema.get("properties", {})
            base = {name: _example(spec, prop) for name, prop in fields.items()}
            for raw in MALFORMED:
                send("malformed JSON", method.upper(), path, raw=raw)
            for name in fields:
                template_body = json.dumps({**base, name: SLOT})
                for value in ODD_VALUES:
                    raw = template_body.replace(json.dumps(SLOT), value).encode()
                    send("odd field values", method.upper(), path, raw=raw)
    pages = [f"/games/{game}", "/", "/settings", "/signin", "/leagues/tuesday", "/ratings"]
    names = set()
    for page in pages:
        names |= set(re.findall(r'name="([\w-]+)"', player.http.request("GET", page).text))
    names.discard("csrf")
    forms = sorted(
        (rule.rule for rule in run.app.url_map.iter_rules() if "POST" in rule.methods),
        key=lambda rule: rule == "/signout",  # last: it ends the session
    )
    for rule in forms:
        if rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values.get(m.group(1), "x")), rule)
        for value in ODD_FORM_VALUES:
            raw = "&".join([f"csrf={csrf}", *(f"{name}={value}" for name in sorted(names))])
            form_type = "application/x-www-form-urlencoded"
            send("odd form values", "POST", path, raw=raw.encode(), content_type=form_type)
    log = run.web_log.read_text(errors="replace")
    total = sum(counted.values())
    return [
        Figure(
            "hostile requests",
            ", ".join(f"{count} {what}" for what, count in sorted(counted.items())),
        ),
        Figure(
            f"answers to the {total}",
            ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items())),
        ),
        Figure("5xx answers", str(len(failures)), "0"),
        Figure("tracebacks in gunicorn's log (whole run)", str(log.count("Traceback")), "0"),
    ] + [Figure("  5xx", failure) for failure in failures[:10]]


#: Bodies that are not JSON, or JSON nothing reads.
MALFORMED = [
    b'{"seats": ',
    b"",
    b"\xff\xfe\x00",
    b'{"a": 1}{"b": 2}',
    b"[" * 20_000 + b"]" * 20_000,
    b'{"seats": NaN}',
    b'{"seats": 1e999}',
    b'"\\ud800"',
    b"null",
    b"[]",
]
#: Values for one field, as JSON text: past the database's integers, not quite integers,
#: NUL, unpaired surrogates, too long, and the same inside a list and an object.
ODD_VALUES = [
    str(MAX_INT + 1),
    str(2**63),
    str(10**30),
    str(-(2**63)),
    "2.0",
    "1e308",
    "true",
    '"a\\u0000b"',
    '"\\ud800x"',
    '"\\udfff"',
    json.dumps("x" * 60_000),
    f'["a\\u0000", {MAX_INT + 1}]',
    f'{{"nested": {10**30}}}',
]
#: Values for every field of a web form, URL-encoded: as `ODD_VALUES`, and bytes that are
#: not UTF-8.
ODD_FORM_VALUES = [
    str(MAX_INT + 1),
    str(2**63),
    str(10**30),
    str(-(2**63)),
    "2.0",
    "a%00b",
    "%ED%A0%80x",
    "%FF%FE",
    "x" * 2_000,
]
#: Where a field's odd value goes into a body.
SLOT = "\u00a7slot\u00a7"


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its `$ref`s followed."""
    while "$ref" in schema:
        parts = schema["$ref"].removeprefix("#/").split("/")
        schema = functools.reduce(lambda node, part: node[part], parts, spec)
    return schema


def _example(spec: dict[str, Any], prop: dict[str, Any]) -> Any:
    """A plausible value of a property, for the fields not being tried."""
    prop = _resolve(spec, prop)
    for choice in prop.get("anyOf", []) + prop.get("oneOf", []):
        if choice.get("type") != "null":
            return _example(spec, choice)
    kind = prop.get("type")
    if "enum" in prop:
        return prop["enum"][0]
    return {"integer": 2, "number": 2, "boolean": False, "array": [], "object": {}}.get(kind, "x")


# --- the run -------------------------------------------------------------------------


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "CAFE_TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
        ),
        help="a PostgreSQL server's URL (a scratch database is made on it, and dropped)",
    )
    parser.add_argument("--races", type=int, default=300, help="pairs of turns for one version")
    parser.add_argument("--mail-seconds", type=float, default=60, help="seconds of game mail")
    parser.add_argument("--guesses", type=int, default=1000, help="wrong sign-in guesses")
    parser.add_argument("--addresses", type=int, default=334, help="addresses they come from")
    parser.add_argument("--samples", type=int, default=200, help="timed pairs per endpoint")
    parser.add_argument("--lease", type=int, default=20, help="the workers' CAFE_OUTBOX_LEASE")
    parser.add_argument(
        "--per-minute", type=int, default=100_000, help="the workers' CAFE_MAIL_PER_MINUTE"
    )
    parser.add_argument(
        "--only",
        type=lambda text: text.split(","),
        default=list(STEPS),
        help=f"the measurements to make, of {','.join(STEPS)} (all; the mail over the run "
        "is always counted)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the processes' logs")
    args = parser.parse_args(argv)
    if unknown := set(args.only) - set(STEPS):
        parser.error(f"--only: no measurement {', '.join(sorted(unknown))}; choose of {STEPS}")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    figures: list[tuple[str, list[Figure]]] = []
    started = time.monotonic()
    with deployment(args) as run:
        steps: dict[str, tuple[str, Callable[[], list[Figure]]]] = {
            "signin": (
                "sign-in under attack",
                lambda: sign_in_under_attack(run, args.guesses, args.addresses),
            ),
            "races": ("double plays", lambda: double_plays(run, args.races)),
            "mail": ("two workers", lambda: two_workers(run, args.mail_seconds, args.lease)),
            "scan": ("private-game scan", lambda: private_scan(run)),
            "timing": ("timing (limits out of the way)", lambda: timing(run, args.samples)),
            "hostile": ("hostile input (limits out of the way)", lambda: hostile(run)),
        }
        chosen = [steps[name] for name in STEPS if name in args.only]
        for title, step in [*chosen, ("mail over the whole run", lambda: mail_over_the_run(run))]:
            print(f"... {title}", file=sys.stderr, flush=True)
            began = time.monotonic()
            rows = step()
            figures.append((f"{title} ({time.monotonic() - began:.0f} s)", rows))
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"\nIssue 21's attack, {when}, {os.cpu_count()} cores ({platform.machine()}), "
        f"load {os.getloadavg()[0]:.1f}, {time.monotonic() - started:.0f} s in all"
    )
    width = max(len(f.what) for _, rows in figures for f in rows)
    for title, rows in figures:
        print(f"\n{title}")
        for figure in rows:
            target = f"   [target {figure.target}]" if figure.target else ""
            print(f"  {figure.what:<{width}}  {figure.value}{target}")


if __name__ == "__main__":
    main()
