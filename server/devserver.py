"""`cafe-server dev`: the whole service on one machine with no setup.

Upgrades the SQLite database under `instance/`, starts a mail catcher (aiosmtpd) that
prints a line for every email (a sign-in email's with its code), a worker thread
delivering the outbox to it, and the web app on Flask's development server with the
caught mail at `/dev/mail` and the development clock on (`cafe-server clock`) — then
says where each listens and what to do next.

Development is for one person at one machine: the limits on registering and signing in
from one address are raised so that a whole league can be registered from it (production
keeps the defaults). While it runs, a note in the instance folder (`dev-server.json`: its
process, database and address) lets the other `cafe-server` commands started there —
`players add`, `clock …`, `mail-in` — act on the same service in development mode without
a secret key (`attached_settings`).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import signal
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import typer

from server import config, migrate
from server.app import create_app
from server.config import settings_of
from server.db import get_engine
from server.devmail import CatchingHandler, start_catcher
from server.jobs.worker import Worker

#: The per-address limits under `cafe-server dev`: a whole league (dozens of players)
#: registers and signs in from one machine. Where the environment sets one, it stands.
DEV_LIMITS = {
    "SIGNUPS_PER_CLIENT": 1000,
    "CODE_REQUESTS_PER_CLIENT": 1000,
    "SIGNIN_GUESSES_PER_CLIENT": 1000,
    "SIGNIN_CODES_PER_HOUR": 100,
}

#: The note a running `cafe-server dev` keeps in its instance folder.
MARKER = "dev-server.json"

NETWORK_WARNING = (
    "WARNING: --host {host} puts the development service on the network. It runs with the "
    "public development key (anyone can forge reply addresses and play turns for any "
    "player) and Flask's development server. Use 127.0.0.1 unless this network is yours "
    "alone; /dev/mail still answers only this machine."
)


def _is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (`localhost`, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def dev_settings(*, base_url: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings every process of the development service runs with: the development
    key and clock, links to `base_url`, and `DEV_LIMITS` where `environ` sets none."""
    environ = os.environ if environ is None else environ
    limits = {key: value for key, value in DEV_LIMITS.items() if f"CAFE_{key}" not in environ}
    return {"BASE_URL": base_url, "DEV_CLOCK": True, "DEVELOPMENT": True, **limits}


def _database_url(environ: Mapping[str, str]) -> str:
    """The database a process started with `environ` here would use."""
    folder = config.instance_path(environ)
    return environ.get("CAFE_DATABASE_URL") or config.defaults(folder)["DATABASE_URL"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def attached_settings(environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The development settings to run a `cafe-server` command with, when a `cafe-server
    dev` is running on this instance folder and database and the environment names no
    secret key (a deployment always does); None otherwise."""
    environ = os.environ if environ is None else environ
    if environ.get("CAFE_SECRET_KEY"):
        return None
    note = config.instance_path(environ) / MARKER
    try:
        running = json.loads(note.read_text(encoding="utf-8"))
        pid, database, base_url = running["pid"], running["database_url"], running["base_url"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if database != _database_url(environ) or not isinstance(pid, int) or not _alive(pid):
        return None
    return dev_settings(base_url=base_url, environ=environ)


@contextmanager
def _marked(folder: Path, *, database_url: str, base_url: str) -> Iterator[None]:
    """The note of this running development service in `folder`, removed when it stops."""
    note = folder / MARKER
    running = {"pid": os.getpid(), "database_url": database_url, "base_url": base_url}
    note.write_text(json.dumps(running), encoding="utf-8")
    try:
        yield
    finally:
        with suppress(OSError):
            note.unlink()


def _interrupt(*_: object) -> None:
    """`kill` (SIGTERM) stops the development service as Ctrl-C does, tidying up."""
    raise KeyboardInterrupt


def run_dev(*, host: str, port: int, mail_port: int, mail_dir: Path | None) -> None:
    """Run until Ctrl-C; caught mail is saved in `mail_dir` (default `instance/mail`) and
    shown at `/dev/mail`."""
    base_url = f"http://{host}:{port}"
    overrides = {
        **dev_settings(base_url=base_url),  # the development key, refused anywhere else
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": mail_port,
        "SMTP_TLS": "none",
        "SMTP_USER": "",
        "WORKER_POLL": 1,
        "DEV_MAIL": True,
    }
    if mail_dir is not None:
        overrides["DEV_MAIL_DIR"] = str(mail_dir)
    if not _is_loopback(host):
        typer.secho(NETWORK_WARNING.format(host=host), err=True, fg="red", bold=True)
    app = create_app(overrides)
    url = settings_of(app).database_url
    # the catcher's SMTP dialogue, werkzeug's own access lines and every migration's
    # description (a new database runs them all) would drown the banner and the mail
    for noisy in ("mail.log", "werkzeug", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    migrate.upgrade(url)
    mail_folder = Path(settings_of(app).dev_mail_dir)
    try:
        catcher = start_catcher(
            CatchingHandler(mail_folder, echo=typer.echo), host="127.0.0.1", port=mail_port
        )
    except OSError as error:
        typer.echo(
            f"cafe-server: the mail catcher cannot listen on port {mail_port} ({error}); "
            "choose another with --mail-port (or CAFE_MAIL_PORT, or make run MAIL_PORT=…)",
            err=True,
        )
        raise typer.Exit(1) from None
    stop = threading.Event()
    worker = threading.Thread(
        target=Worker(get_engine(app), settings_of(app)).run, args=(stop,), daemon=True
    )
    worker.start()
    typer.echo(
        "Café International is running (development mode):\n"
        f"  web          http://{host}:{port}/  (sign in with the code the mail catcher prints)\n"
        f"  API          http://{host}:{port}/api  (description: /api/openapi.json)\n"
        f"  health       http://{host}:{port}/healthz\n"
        f"  database     {url}\n"
        f"  mail catcher smtp://127.0.0.1:{mail_port}  (one line per email here; the emails "
        f"are saved in {mail_folder})\n"
        f"  caught mail  http://{host}:{port}/dev/mail\n"
        "  worker       delivering the outbox every second\n"
        "  clock        development clock: move it with `cafe-server clock advance 3d`\n"
        "  here         `cafe-server players add`, `clock …` and `mail-in` run from this "
        "folder act on this service (no secret key needed)\n"
        "Press Ctrl-C to stop.\n"
        f"next: cafe register NAME EMAIL --server http://{host}:{port}"
    )
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        with _marked(Path(app.instance_path), database_url=url, base_url=base_url):
            app.run(host=host, port=port, use_reloader=False, threaded=True)
    finally:
        stop.set()
        worker.join(timeout=5)
        catcher.stop()
