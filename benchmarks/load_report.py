"""The figures of one `benchmarks/load.py` run, from what each part of it recorded.

- Requests by kind (Locust's CSV): count, requests a second, p50/p95/p99 in ms; errors as
  Locust counted them (an answer outside the expected ones), split into no answer (sent
  again), 5xx and unexpected 4xx. Beside them, the same kinds' time inside the service,
  from the web's request log: what Locust adds to it is the client's and gunicorn's queue
  (docs/scaling.md measures Locust's own share).
- Turns: confirmed with 201 (Locust's ledger), logged from the API, emailed, played on
  time-out; *lost* (a confirmed turn whose idempotency record is not in the database) and
  *doubled* (API turns logged beyond the idempotency records: one request applied twice).
- Mail: each message's lag from its event's commit (the outbox row's `created_at`, turned
  from the development clock's time into real time with `Clock`) to its arrival at the sink,
  p50/p99; messages received; duplicates (a Message-ID received twice; an event — kind,
  game, version, seat — sent under two Message-IDs); lost (an event still waiting or failed
  after the run, or marked sent but never received).
- Time-outs: how many; any played before its deadline had passed (a time-out applied twice
  would be one); the real seconds from its deadline to its commit, p50/p99/max, against
  the sweep interval; deadlines and reminders still due when the workers had settled.
- The deployment: connections to the database (most at once), what active queries waited
  for, scans per table, CPU seconds by role and the machine's busy share; the checks.
"""

from __future__ import annotations

import bisect
import csv
import math
import re
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

#: The issue's targets.
TARGETS = {
    "POST turn p99 ms": 250,
    "GET state p99 ms": 100,
    "mail lag p99 s": 10,
}


@dataclass
class Clock:
    """The development clock's offset over the run: (real time, offset seconds) from each
    change on, in order."""

    changes: list[tuple[float, float]]

    def real(self, moment: datetime) -> float:
        """The real time (time.time()) at which the service's clock read `moment`."""
        shifted = _utc(moment).timestamp()
        starts = [real + offset for real, offset in self.changes]
        index = max(bisect.bisect_right(starts, shifted) - 1, 0)
        return shifted - self.changes[index][1]

    def due(self, moment: datetime) -> float:
        """The real time at which the service's clock first read `moment` or later."""
        shifted = _utc(moment).timestamp()
        for index, (real, offset) in enumerate(self.changes):
            if shifted < real + offset:
                return real  # the clock jumped over it at this change
            following = self.changes[index + 1][0] if index + 1 < len(self.changes) else math.inf
            if shifted < following + offset:
                return shifted - offset
        raise AssertionError("unreachable: the last change runs for ever")


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def requests_by_kind(prefix: Path, seconds: float) -> dict[str, Any]:
    found = {}
    with Path(f"{prefix}_stats.csv").open() as stats:
        for row in csv.DictReader(stats):
            if row["Name"] == "Aggregated":
                continue
            count = int(row["Request Count"])
            found[row["Name"]] = {
                "count": count,
                "per_second": round(count / seconds, 1),
                "failures": int(row["Failure Count"]),
                "p50_ms": _ms(row["50%"]),
                "p95_ms": _ms(row["95%"]),
                "p99_ms": _ms(row["99%"]),
                "max_ms": _ms(row["Max Response Time"]),
            }
    return found


#: The service's own log line of a request (`server.logs`): method, path, status, time.
_REQUEST_LINE = re.compile(r"server\.request: (GET|POST) (\S+) (\d{3}) ([0-9.]+)ms")
#: Locust's kinds as the service logs them: method, path, status.
_SERVICE_KINDS = (
    ("GET state", re.compile(r"GET /api/games/\d+ 200")),
    ("GET hints", re.compile(r"GET /api/games/\d+/hints \d{3}")),
    ("POST turn", re.compile(r"POST /api/games/\d+/turns 201")),
    ("GET list", re.compile(r"GET /api/games (200|304)")),
    ("GET page", re.compile(r"GET /games/\d+ 200")),
)


def service_times(web_log: Path) -> dict[str, Any]:
    """By request kind, the time each request spent in the service, as its log line says:
    from the app's first hook to its response, on the web process's clock. Beside Locust's
    figures, what the client and gunicorn's queue (a request waiting for a thread) add is
    the difference (docs/scaling.md)."""
    times: dict[str, list[float]] = {name: [] for name, _ in _SERVICE_KINDS}
    for line in web_log.read_text(errors="replace").splitlines():
        found = _REQUEST_LINE.search(line)
        if found is None:
            continue
        method, path, status, elapsed = found.groups()
        said = f"{method} {path} {status}"
        for name, pattern in _SERVICE_KINDS:
            if pattern.fullmatch(said):
                times[name].append(float(elapsed))
                break
    return {
        name: {
            "count": len(values),
            "p50_ms": _round(percentile(values, 0.50)),
            "p95_ms": _round(percentile(values, 0.95)),
            "p99_ms": _round(percentile(values, 0.99)),
            "max_ms": _round(max(values, default=None)),
        }
        for name, values in times.items()
        if values
    }


def _ms(value: str) -> float | None:
    return None if value in ("", "N/A") else round(float(value), 1)


def errors(prefix: Path) -> dict[str, int]:
    kinds: Counter[str] = Counter()
    with Path(f"{prefix}_failures.csv").open() as failures:
        for row in csv.DictReader(failures):
            said, count = row["Error"], int(row["Occurrences"])
            if "no answer" in said:  # by request and status: which were cut, and how
                kinds[f"{row['Name']}: {said}"] += count
            elif "unexpected 5" in said:
                kinds["5xx"] += count
            else:
                kinds["unexpected 4xx or other"] += count
    return dict(kinds)


def turns(engine: Engine, ledger: dict[str, Any], mail_in: Any) -> dict[str, Any]:
    with engine.connect() as connection:
        logged = dict(
            connection.execute(
                text("SELECT coalesce(source, kind), count(*) FROM turns GROUP BY 1")
            ).all()
        )
        keys = {
            key for (key,) in connection.execute(text("SELECT key FROM idempotency_keys")).all()
        }
    confirmed = {key for _, key in ledger["confirmed"]}
    api = logged.get("api", 0)
    return {
        "confirmed_201": len(confirmed),
        "logged_api": api,
        "logged_email": logged.get("email", 0),
        "logged_timeout": logged.get("timeout", 0),
        "lost": len(confirmed - keys),
        "doubled": max(api - len(keys), 0),
        "applied_unconfirmed": len(keys - confirmed),
        "client": ledger["counts"],
        "mail_in": dict(mail_in.outcomes),
        "mail_in_seconds_p50": percentile(mail_in.seconds, 0.5),
    }


def mail(engine: Engine, clock: Clock, sink: list[tuple[float, str]]) -> dict[str, Any]:
    received = Counter(message_id for _, message_id in sink)
    first = {}
    for arrived, message_id in sink:
        first.setdefault(message_id, arrived)
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT message_id, status, created_at, kind FROM outbox")
        ).all()
        doubled_events = connection.execute(
            text(
                "SELECT count(*) FROM (SELECT 1 FROM outbox WHERE status = 'sent' "
                "AND game_id IS NOT NULL GROUP BY kind, game_id, version, seat, to_addr "
                "HAVING count(*) > 1) AS twice"
            )
        ).scalar()
    statuses = Counter(status for _, status, _, _ in rows)
    lags = [first[mid] - clock.real(created) for mid, status, created, _ in rows if mid in first]
    sent = {mid for mid, status, _, _ in rows if status == "sent"}
    return {
        "queued": len(rows),
        "by_status": dict(statuses),
        "by_kind": dict(Counter(kind for *_, kind in rows)),
        "received": sum(received.values()),
        "distinct_received": len(received),
        "lag_p50_s": _round(percentile(lags, 0.5)),
        "lag_p99_s": _round(percentile(lags, 0.99)),
        "lag_max_s": _round(max(lags, default=None)),
        "message_ids_twice": sum(1 for n in received.values() if n > 1),
        "events_twice": doubled_events,
        "lost": statuses["pending"] + statuses["sending"] + statuses["failed"]
        + len(sent - set(received)),
    }  # fmt: skip


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def due_now(engine: Engine, by: datetime) -> dict[str, int]:
    """Running games whose deadline or reminder came `by` (the development clock's time when
    the traffic stopped) and are due still: taken after the workers settled, while they
    run (0 and 0 expected; what came due later waits for their next sweep)."""
    with engine.connect() as connection:
        due = connection.execute(
            text(
                "SELECT count(*) FILTER (WHERE deadline <= :by), "
                "count(*) FILTER (WHERE reminder_due <= :by) FROM games WHERE status = 'active'"
            ),
            {"by": by},
        ).one()
    return {"deadlines_due_unhandled": due[0], "reminders_due_unsent": due[1]}


def timeouts(engine: Engine, clock: Clock, sweep: int, due: dict[str, int]) -> dict[str, Any]:
    """Each time-out's deadline is a day after the entry before it (or the game's start)."""
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT t.created_at, coalesce(("
                "  SELECT max(p.created_at) FROM turns p"
                "  WHERE p.game_id = t.game_id AND p.number < t.number"
                "), g.started_at) + interval '1 day' "
                "FROM turns t JOIN games g ON g.id = t.game_id WHERE t.kind = 'timeout'"
            )
        ).all()
    early = sum(1 for applied, deadline in rows if _utc(applied) < _utc(deadline))
    lags = [clock.real(applied) - clock.due(deadline) for applied, deadline in rows]
    return {
        "applied": len(rows),
        "before_their_deadline": early,
        "lag_p50_s": _round(percentile(lags, 0.5)),
        "lag_p99_s": _round(percentile(lags, 0.99)),
        "lag_max_s": _round(max(lags, default=None)),
        "sweep_interval_s": sweep,
        **due,
    }


def log_counts(logs: dict[str, Any]) -> dict[str, int]:
    texts = {"web": logs["web"].read_text(errors="replace")}
    texts["workers"] = "".join(log.read_text(errors="replace") for log in logs["workers"])
    return {
        "web_tracebacks": texts["web"].count("Traceback"),
        "worker_tracebacks": texts["workers"].count("Traceback"),
        "worker_database_unreachable": texts["workers"].count("cannot be reached"),
    }


def report(
    *,
    engine: Engine,
    args: dict[str, Any],
    started: float,
    ended: float,
    clock: Clock,
    sink: list[tuple[float, str]],
    prefix: Path,
    ledger: dict[str, Any],
    mail_in: Any,
    sampler: Any,
    machine: dict[str, Any],
    faults: list[dict[str, Any]],
    checks: dict[str, Any],
    settled: float,
    due: dict[str, int],
    seeded: float,
    tables: dict[str, Any],
    logs: dict[str, Any],
) -> dict[str, Any]:
    """Every figure of the run (printed too)."""
    seconds = ended - started
    kinds = requests_by_kind(prefix, seconds)
    figures = {
        "run": {**args, "seconds": round(seconds, 1), "seeded_s": round(seeded, 1),
                "settled_s": round(settled, 1)},
        "requests": kinds,
        "service": service_times(logs["web"]),
        "errors": errors(prefix),
        "turns": turns(engine, ledger, mail_in),
        "mail": mail(engine, clock, sink),
        "timeouts": timeouts(engine, clock, args["sweep"], due),
        "checks": checks,
        "logs": log_counts(logs),
        "faults": faults,
        "database": {
            "connections_max": max(sampler.connections, default=0),
            "connections_median": statistics.median(sampler.connections or [0]),
            "waits": dict(sampler.waits.most_common(8)),
            "scans": tables,
        },
        "machine": machine,
    }  # fmt: skip
    figures["turns"]["per_second"] = round(figures["turns"]["confirmed_201"] / seconds, 1)
    last = max((arrived for arrived, _ in sink), default=ended)
    # from the traffic's start to the last arrival: the outbox settles after the traffic
    figures["mail"]["per_second"] = round(figures["mail"]["received"] / (last - started), 1)
    figures["verdict"] = verdict(figures)
    print_figures(figures)
    return figures


def verdict(figures: dict[str, Any]) -> dict[str, bool]:
    """Each target: met or missed."""
    kinds = figures["requests"]
    return {
        "POST turn p99 <= 250 ms": (kinds.get("POST turn", {}).get("p99_ms") or 1e9) <= 250,
        "GET state p99 <= 100 ms": (kinds.get("GET state", {}).get("p99_ms") or 1e9) <= 100,
        "mail lag p99 <= 10 s": (figures["mail"]["lag_p99_s"] or 1e9) <= 10,
        "0 errors": not figures["errors"],
        "0 lost turns": figures["turns"]["lost"] == 0,
        "0 doubled turns": figures["turns"]["doubled"] == 0,
        "0 lost mail": figures["mail"]["lost"] == 0,
        "0 doubled mail": figures["mail"]["events_twice"] == 0
        and figures["mail"]["message_ids_twice"] == 0,
        "time-outs once, none left due": figures["timeouts"]["before_their_deadline"] == 0
        and figures["timeouts"]["deadlines_due_unhandled"] == 0,
        "checks clean": all(check["exit"] == 0 for check in figures["checks"].values()),
    }


def print_figures(figures: dict[str, Any]) -> None:
    print(f"{'kind':<20} {'count':>7} {'/s':>6} {'fail':>5} {'p50':>6} {'p95':>6} {'p99':>6}")
    for name, row in sorted(figures["requests"].items()):
        print(
            f"{name:<20} {row['count']:>7} {row['per_second']:>6} {row['failures']:>5} "
            f"{row['p50_ms']!s:>6} {row['p95_ms']!s:>6} {row['p99_ms']!s:>6}"
        )
    print("inside the service (its request log; the client and gunicorn's queue not counted):")
    for name, row in sorted(figures["service"].items()):
        print(
            f"{name:<20} {row['count']:>7} {'':>6} {'':>5} "
            f"{row['p50_ms']!s:>6} {row['p95_ms']!s:>6} {row['p99_ms']!s:>6}"
        )
    for part in ("errors", "turns", "mail", "timeouts", "checks", "logs", "faults", "machine"):
        print(f"{part}: {figures[part]}")
    print(f"database: { {k: v for k, v in figures['database'].items() if k != 'scans'} }")
    for target, met in figures["verdict"].items():
        print(f"{'met   ' if met else 'MISSED'} {target}")
