"""`cafe-server dev`: the whole service on one machine with no setup.

Upgrades the SQLite database under `instance/`, starts a mail catcher (aiosmtpd) that
prints a line for every email (a sign-in email's with its code), a worker thread
delivering the outbox to it, and the web app on Flask's development server with the
caught mail at `/dev/mail` and the development clock on (`cafe-server clock`) — then
says where each listens and what to do next.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from pathlib import Path

import typer

from server import create_app, migrate
from server.db import get_engine
from server.devmail import CatchingHandler, start_catcher
from server.worker import Worker

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


def run_dev(*, host: str, port: int, mail_port: int, mail_dir: Path | None) -> None:
    """Run until Ctrl-C; caught mail is saved in `mail_dir` (default `instance/mail`) and
    shown at `/dev/mail`."""
    overrides = {
        "BASE_URL": f"http://{host}:{port}",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": mail_port,
        "SMTP_TLS": "none",
        "SMTP_USER": "",
        "WORKER_POLL": 1,
        "DEV_MAIL": True,
        "DEV_CLOCK": True,
        "DEVELOPMENT": True,  # the development key, refused anywhere else
    }
    if mail_dir is not None:
        overrides["DEV_MAIL_DIR"] = str(mail_dir)
    if not _is_loopback(host):
        typer.secho(NETWORK_WARNING.format(host=host), err=True, fg="red", bold=True)
    app = create_app(overrides)
    url = app.config["DATABASE_URL"]
    migrate.upgrade(url)
    # the catcher's SMTP dialogue and werkzeug's own access lines would drown the mail
    for noisy in ("mail.log", "werkzeug"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    mail_folder = Path(app.config["DEV_MAIL_DIR"])
    catcher = start_catcher(
        CatchingHandler(mail_folder, echo=typer.echo), host="127.0.0.1", port=mail_port
    )
    stop = threading.Event()
    worker = threading.Thread(
        target=Worker(get_engine(app), app.config).run, args=(stop,), daemon=True
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
        "Press Ctrl-C to stop.\n"
        f"next: cafe register NAME EMAIL --server http://{host}:{port}"
    )
    try:
        app.run(host=host, port=port, use_reloader=False, threaded=True)
    finally:
        stop.set()
        worker.join(timeout=5)
        catcher.stop()
