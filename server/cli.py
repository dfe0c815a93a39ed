"""`cafe-server`, the operators' console script (Typer).

Each command builds the app from the environment (`CAFE_*`), does one job and prints a
one-line result; a refusal is one line on stderr and a non-zero exit, never a traceback.

The checks run on a live database: `games check` reads each game together with its log in
one snapshot of the database (`server.db.snapshot`, a `REPEATABLE READ` read-only
transaction per game on PostgreSQL, one read transaction per game on SQLite), so a game
that moved on after the listing, or while it was checked, is not reported inconsistent;
`league check` reads the seasons, their games and the ratings in one such snapshot.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from datetime import UTC, datetime
from enum import IntEnum
from pathlib import Path
from typing import Annotated, BinaryIO

import typer
from flask import Flask
from pydantic import ValidationError
from sqlalchemy import Engine
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from cafe.render import quantities
from server import accounts, auth, migrate
from server.apispec import refusal
from server.app import create_app
from server.clock import devclock, timesource
from server.config import ConfigError, settings_of
from server.db import get_engine, snapshot
from server.devserver import attached_settings, run_dev
from server.domain import DomainError
from server.games import turns
from server.jobs import outbox, retention
from server.jobs.worker import Worker, worker_engine
from server.league import departure, ratings
from server.league.check import differences as league_check_differences
from server.mail import replies
from server.mail.receiver import start_receiver
from server.models import GameRecord, Player, iso, utcnow
from server.schemas.accounts import PlayerCreate
from server.transactions import outage

log = logging.getLogger(__name__)


class Exit(IntEnum):
    """Exit codes."""

    OK = 0
    FAILED = 1  # the command was understood but could not be done
    INTEGRITY = 3  # `games check` / `league check` found stored facts their source contradicts
    TEMPFAIL = 75  # `mail-in`: try again later (sysexits EX_TEMPFAIL, which mail servers know)


app = typer.Typer(help="Operate the Café International service.", no_args_is_help=True)
db_app = typer.Typer(help="The database schema.", no_args_is_help=True)
players_app = typer.Typer(help="Players.", no_args_is_help=True)
tokens_app = typer.Typer(help="API tokens.", no_args_is_help=True)
games_app = typer.Typer(help="Games.", no_args_is_help=True)
mail_app = typer.Typer(help="The outbox.", no_args_is_help=True)
league_app = typer.Typer(help="Leagues.", no_args_is_help=True)
ratings_app = typer.Typer(help="Ratings.", no_args_is_help=True)
clock_app = typer.Typer(
    help="The development clock (with CAFE_DEV_CLOCK=1 only): shift the time every process "
    "of the database sees.",
    no_args_is_help=True,
)
app.add_typer(db_app, name="db")
app.add_typer(players_app, name="players")
app.add_typer(tokens_app, name="tokens")
app.add_typer(games_app, name="games")
app.add_typer(mail_app, name="mail")
app.add_typer(league_app, name="league")
app.add_typer(ratings_app, name="ratings")
app.add_typer(clock_app, name="clock")


def fail(message: str, code: Exit = Exit.FAILED) -> typer.Exit:
    """Print `message` on stderr; the exception to raise to end with `code`."""
    typer.echo(f"cafe-server: {message}", err=True)
    return typer.Exit(code)


def load_app() -> Flask:
    """The app as the environment configures it; beside a running `cafe-server dev` (same
    instance folder and database, no secret key set), the development service's settings
    (`server.devserver.attached_settings`)."""
    attached = attached_settings()
    if attached is not None:
        typer.echo(
            f"cafe-server: `cafe-server dev` runs here ({attached['BASE_URL']}): using its "
            "development settings",
            err=True,
        )
    try:
        return create_app(attached)
    except ConfigError as error:
        raise fail(str(error)) from None


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Create or update the database schema to the newest migration."""
    url = settings_of(load_app()).database_url
    try:
        migrate.upgrade(url)
    except migrate.MigrationRefused as refusal:
        raise fail(f"the upgrade stopped: {refusal}") from None
    typer.echo(f"database is up to date: {url.partition('://')[0]}")


@db_app.command("revision")
def db_revision(message: str) -> None:
    """(Developers) write a migration for the difference between the models and the database."""
    migrate.revision(settings_of(load_app()).database_url, message)


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 5000,
    debug: Annotated[bool, typer.Option(help="Flask debug mode with reloader")] = False,
) -> None:
    """Run the web app with Flask's development server (use gunicorn in production)."""
    load_app().run(host=host, port=port, debug=debug)


@app.command()
def worker(
    once: Annotated[
        bool, typer.Option(help="Sweep the clocks once and deliver what is due, then exit")
    ] = False,
) -> None:
    """Enforce the games' deadlines and reminders, and deliver the outbox over SMTP, until
    stopped (SIGTERM or Ctrl-C). With --once, a database that cannot be reached ends it
    with one line and exit 75, to be run again (its batch is handed back either way)."""
    flask_app = load_app()
    delivery = Worker(
        worker_engine(settings_of(flask_app)),
        settings_of(flask_app),
        clock_engine=get_engine(flask_app),
    )
    if once:
        try:
            while delivery.run_once():
                pass
        except Exception as error:
            if not outage(error):
                raise  # a bug: its traceback is what tells what went wrong
            reason = getattr(error, "orig", None) or error
            raise fail(
                f"the database cannot be reached ({reason}); nothing was lost: run it again",
                Exit.TEMPFAIL,
            ) from None
        return
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        delivery.run(stop)
    except KeyboardInterrupt:
        stop.set()


def parse_since(text: str, now: datetime) -> datetime:
    """`--since`: a time ago (`90m`, `6h`, `2d`, `1d12h`: `cafe.render.quantities`) or an
    ISO 8601 date or time (UTC unless it says otherwise)."""
    try:
        return now - quantities.parse_duration(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise typer.BadParameter(
            f"{text!r}: use a time ago like 6h or 2d, or a date like 2026-11-30"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@mail_app.command("retry")
def mail_retry(
    failed: Annotated[
        bool, typer.Option("--failed", help="Also messages given up on (attempts start again)")
    ] = False,
    since: Annotated[
        str | None, typer.Option(help="Only messages queued since: 6h, 2d or 2026-11-30T08:00")
    ] = None,
) -> None:
    """Make waiting messages due now, e.g. after fixing the mail server's settings."""
    moment = None if since is None else parse_since(since, utcnow())
    count = outbox.requeue(get_engine(load_app()), failed=failed, since=moment)
    what = "pending or failed" if failed else "pending"
    typer.echo(f"{count} {what} messages are due now; a running worker sends them")


@players_app.command("add")
def players_add(name: str, email: str) -> None:
    """Register a player without sending a sign-in code."""
    flask_app = load_app()
    with flask_app.app_context(), Session(get_engine(flask_app)) as session:
        try:
            new = PlayerCreate.model_validate({"name": name, "email": email})
            player = accounts.create_player(
                session, name=new.name, email=new.email, config=settings_of(flask_app)
            )
        except ValidationError as error:
            raise fail(refusal(error).message) from None
        except DomainError as error:
            raise fail(error.message) from None
        typer.echo(f"player {player.id}: {player.name} <{player.email}>")


@players_app.command("remove")
def players_remove(name: str) -> None:
    """Take a player out of the service: withdrawn from every season, resigned from every
    running game, tokens revoked, emails off (finished results and rating stay)."""
    flask_app = load_app()
    with flask_app.app_context(), Session(get_engine(flask_app)) as session:
        player = session.exec(select(Player).where(Player.name == name)).first()
        if player is None:
            raise fail(f"no player is named {name!r}")
        try:
            gone = departure.remove_player(session, player, config=settings_of(flask_app))
        except DomainError as error:
            raise fail(error.message) from None
    games = ", ".join(str(game) for game in gone.games) or "none"
    typer.echo(f"{name} removed: withdrawn from {gone.seasons} seasons, resigned games: {games}")


@tokens_app.command("create")
def tokens_create(
    name: str, label: Annotated[str, typer.Option(help="What the token is for")] = "operator"
) -> None:
    """Print a new API token for player NAME (for operators and bots); it is shown once."""
    flask_app = load_app()
    with Session(get_engine(flask_app)) as session:
        player = session.exec(select(Player).where(Player.name == name)).first()
        if player is None:
            raise fail(f"no player is named {name!r}; add one with `cafe-server players add`")
        _, secret = auth.issue_token(session, player=player, label=label)
        session.commit()
    typer.echo(secret)


@games_app.command("check")
def games_check() -> None:
    """Replay every started game's log and compare it with the stored snapshot."""
    engine = get_engine(load_app())
    with Session(engine) as session:
        game_ids = session.exec(
            select(GameRecord.id)
            .where(col(GameRecord.state).is_not(None))
            .order_by(col(GameRecord.id))
        ).all()
    bad = 0
    for game_id in game_ids:
        problem = _check_game(engine, game_id)
        if problem is not None:
            bad += 1
            typer.echo(f"game {game_id}: {problem}")
    typer.echo(f"{len(game_ids)} games checked, {bad} inconsistent")
    if bad:
        raise typer.Exit(Exit.INTEGRITY)


def _check_game(engine: Engine, game_id: int | None) -> str | None:
    """Why the game's snapshot and its log disagree, the two read in one snapshot of the
    database: a turn played since the listing, or during the check, is no false alarm."""
    with snapshot(engine) as session:
        game = session.get(GameRecord, game_id)
        return None if game is None else turns.check(session, game)


@league_app.command("check")
def league_check() -> None:
    """Recompute every season's standings, games left and moves, and every rating, from
    the finished games; report each difference (exit 3 if any)."""
    with snapshot(get_engine(load_app())) as session:  # a game finishing meanwhile: no alarm
        seasons, found = league_check_differences(session)
    for line in found:
        typer.echo(line)
    typer.echo(f"{seasons} seasons and the ratings checked, {len(found)} differences")
    if found:
        raise typer.Exit(Exit.INTEGRITY)


@ratings_app.command("rebuild")
def ratings_rebuild() -> None:
    """Recompute every rating from the rated games in the order they finished, report what
    differs from the stored values, and store the recomputed ones."""
    flask_app = load_app()
    with Session(get_engine(flask_app)) as session:
        replayed = ratings.replay(session)
        found = ratings.differences(session, replayed)
        for line in found:
            typer.echo(line)
        ratings.store(session, replayed)
    typer.echo(f"{len(replayed.skills)} ratings rebuilt, {len(found)} differed from the stored")


def dev_clock_engine() -> Engine:
    """The engine of the development clock, or a refusal when it is off."""
    flask_app = load_app()
    engine = flask_app.extensions.get("cafe_dev_clock")
    if engine is None:
        raise fail(
            "the development clock is off; set CAFE_DEV_CLOCK=1 (development and tests only)"
        )
    return engine


def print_clock(engine: Engine) -> None:
    """`time 2027-01-01T00:00:00Z (system time +3 days, 0:00:00)`."""
    offset = devclock.read_offset(engine)
    shifted = iso((timesource.system_now() + offset).replace(microsecond=0))
    typer.echo(f"time {shifted} (system time {devclock.shift_text(offset)})")


@clock_app.command("show")
def clock_show() -> None:
    """The time every process of this database sees, and its shift from the system's."""
    print_clock(dev_clock_engine())


@clock_app.command("advance")
def clock_advance(
    by: Annotated[str, typer.Argument(help="How far: 36h, 3d, 1d12h, 90m", metavar="DURATION")],
) -> None:
    """Move the development clock forward."""
    engine = dev_clock_engine()
    try:
        devclock.advance(engine, devclock.parse_duration(by))
    except devclock.ClockError as error:
        raise fail(str(error)) from None
    print_clock(engine)


@clock_app.command("set")
def clock_set(
    moment: Annotated[str, typer.Argument(help="ISO 8601, e.g. 2027-01-01T00:00Z", metavar="TIME")],
) -> None:
    """Set the development clock to a later time."""
    engine = dev_clock_engine()
    try:
        devclock.set_to(engine, devclock.parse_moment(moment))
    except devclock.ClockError as error:
        raise fail(str(error)) from None
    print_clock(engine)


@app.command()
def purge(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count what would go, change nothing")
    ] = False,
) -> None:
    """Apply the retention rules (docs/security.md): clear old mail bodies, delete expired
    codes, keys and records, expire open games nobody joined. Prints a count per rule."""
    flask_app = load_app()
    with flask_app.app_context(), Session(get_engine(flask_app)) as session:
        counts = retention.purge(session, settings_of(flask_app), utcnow(), dry_run=dry_run)
    for rule, count in counts.items():
        typer.echo(f"{rule}: {count}")
    if dry_run:
        typer.echo("dry run: nothing was changed")


@app.command("mail-in")
def mail_in(
    listen: Annotated[
        str | None,
        typer.Option(metavar="HOST:PORT", help="Run an SMTP server for replies instead"),
    ] = None,
    to: Annotated[
        list[str] | None,
        typer.Option("--to", help="The envelope recipient, if the mail server passes it"),
    ] = None,
    sender: Annotated[
        str,
        typer.Option("--sender", help="The envelope sender (MAIL FROM), the only address answered"),
    ] = "",
) -> None:
    """Play the turn in one emailed reply read from stdin (or, with --listen, receive
    replies over SMTP until stopped). Exit 75 asks the mail server to retry later."""
    flask_app = load_app()
    if listen is not None:
        receive(flask_app, listen)
        return
    limit = settings_of(flask_app).mail_in_max_bytes
    raw, size = read_capped(sys.stdin.buffer, keep=2 * limit)
    try:
        outcome = replies.handle(
            flask_app, raw, envelope_to=tuple(to or ()), envelope_from=sender, size=size
        )
    except OperationalError as error:
        raise fail(
            f"the database is unavailable ({error.orig}); try again", Exit.TEMPFAIL
        ) from None
    except Exception:  # a bug: keep the message with the mail server, which retries later
        log.exception("mail-in failed")
        raise fail("the reply could not be handled (logged); try again", Exit.TEMPFAIL) from None
    typer.echo(f"{outcome.kind}: {outcome.note}")


def receive(flask_app: Flask, listen: str) -> None:
    """Take replies over SMTP on `listen` (HOST:PORT) until SIGTERM or Ctrl-C."""
    host, _, port = listen.rpartition(":")
    if not host or not port.isdigit():
        raise fail(f"--listen {listen!r}: write HOST:PORT, e.g. 127.0.0.1:2525")
    receiver = start_receiver(flask_app, host=host, port=int(port))
    typer.echo(f"receiving replies on smtp://{host}:{port}")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        receiver.stop()


def read_capped(stream: BinaryIO, *, keep: int) -> tuple[bytes, int]:
    """Read `stream` to its end (a mail server wants its pipe drained) but keep only the
    first `keep` bytes; the bytes kept and the full size."""
    kept, size = bytearray(), 0
    while chunk := stream.read(1 << 16):
        size += len(chunk)
        if len(kept) < keep:
            kept += chunk[: keep - len(kept)]
    return bytes(kept), size


@app.command()
def dev(
    host: str = "127.0.0.1",
    port: Annotated[int, typer.Option(envvar="CAFE_PORT", help="Port of the web app")] = 5000,
    mail_port: Annotated[
        int, typer.Option(envvar="CAFE_MAIL_PORT", help="Port of the local mail catcher")
    ] = 8025,
    mail_dir: Annotated[
        Path | None, typer.Option(help="Where caught mail is saved [default: instance/mail]")
    ] = None,
) -> None:
    """Run everything locally: migrate, web app, worker and a mail catcher that prints mail."""
    run_dev(host=host, port=port, mail_port=mail_port, mail_dir=mail_dir)


def main() -> None:
    """Console-script entry point."""
    app()
