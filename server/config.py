"""Configuration: embedded defaults, then `CAFE_*` environment variables, then test overrides.

The defaults run locally with no setup (a SQLite file under `instance/`, mail to a local
catcher on port 8025), so `cafe-server dev` needs nothing but a checkout. Every setting can
be changed by an environment variable named `CAFE_<KEY>`; docs/operations.md lists them.

The instance folder itself (the SQLite file, caught mail) is the current directory's
`instance/`, or `CAFE_INSTANCE_DIR`: never beside the code, which may be installed in a
virtual environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from email.utils import parseaddr
from pathlib import Path
from typing import Any

#: Settings that are integers; their environment values are converted and checked.
INT_KEYS = frozenset(
    {
        "SMTP_PORT",
        "SIGNIN_CODE_TTL",
        "SIGNIN_CODES_PER_HOUR",
        "SIGNIN_GUESSES_PER_CLIENT",
        "SIGNIN_GUESSES_PER_ACCOUNT",
        "SIGNUPS_PER_CLIENT",
        "SIGNUPS_PER_HOUR",
        "CODE_REQUESTS_PER_CLIENT",
        "TRUSTED_PROXIES",
        "MAX_CONTENT_LENGTH",
        "OUTBOX_MAX_ATTEMPTS",
        "OUTBOX_BACKOFF",
        "OUTBOX_LEASE",
        "WORKER_POLL",
        "WORKER_SWEEP",
        "WORKER_OUTAGE_MAX",
        "SQLITE_BUSY_TIMEOUT",
        "MAIL_PER_MINUTE",
        "MAIL_IN_MAX_BYTES",
        "DIGEST_HOURS",
        "UNSUBSCRIBE_LINK_DAYS",
        "IDEMPOTENCY_HOURS",
        "MAIL_BODY_DAYS",
        "MAIL_KEEP_DAYS",
        "STRANGER_MAIL_HOURS",
        "INBOUND_MAIL_DAYS",
        "OPEN_GAME_DAYS",
    }
)

#: Settings that are switches; their environment values are `1`/`0`, `true`/`false`, ….
BOOL_KEYS = frozenset({"DEV_MAIL", "DEV_CLOCK", "SMTP_UTF8"})
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")

#: Values `CAFE_SMTP_TLS` may take.
SMTP_TLS_MODES = ("none", "starttls", "ssl")

#: Names the instance folder; read before the settings, whose defaults depend on it.
INSTANCE_DIR_VARIABLE = "CAFE_INSTANCE_DIR"

#: The key `cafe-server dev` and the tests run with; refused anywhere else, since anyone who
#: knows it can forge reply addresses (turns by email) and unsubscribe links.
DEV_SECRET_KEY = "dev-only-secret-change-me"

#: The shortest secret key (in UTF-8 bytes) a production service starts with.
MIN_SECRET_BYTES = 32

#: Settings only code may give (`cafe-server dev`, the tests), never the environment.
CODE_ONLY_KEYS = frozenset({"DEVELOPMENT"})


class ConfigError(ValueError):
    """A configuration value is unusable; the message names the variable and the fix."""


def instance_path(environ: Mapping[str, str] | None = None) -> Path:
    """The instance folder, absolute (as Flask wants it): `CAFE_INSTANCE_DIR` if set, else
    `instance/` in the current directory."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(INSTANCE_DIR_VARIABLE) or "instance").expanduser().resolve()


def defaults(instance_path: str | Path) -> dict[str, Any]:
    """The embedded defaults; `instance_path` holds the SQLite file."""
    return {
        "DATABASE_URL": f"sqlite:///{Path(instance_path) / 'cafe.db'}",
        "SECRET_KEY": DEV_SECRET_KEY,
        "SECRET_KEY_OLD": "",  # earlier keys, comma-separated: they verify, never sign
        "DEVELOPMENT": False,  # `cafe-server dev`: the development key is allowed
        "UNSUBSCRIBE_LINK_DAYS": 90,  # days an emailed unsubscribe link works
        "BASE_URL": "http://127.0.0.1:5000",
        "SMTP_HOST": "127.0.0.1",
        "SMTP_PORT": 8025,
        "SMTP_USER": "",
        "SMTP_PASSWORD": "",
        "SMTP_TLS": "none",
        "SMTP_UTF8": False,  # the SMTP server offers SMTPUTF8: international addresses allowed
        "MAIL_FROM": "Café International <cafe@localhost>",
        "MAIL_DOMAIN": "",  # of Message-IDs and reply addresses; empty: MAIL_FROM's domain
        "MAIL_PER_MINUTE": 10,  # messages one recipient may be sent per minute (0: no limit)
        "MAIL_IN_MAX_BYTES": 10_000_000,  # larger emailed replies are refused unread
        "DIGEST_HOURS": 24,  # hours between two digests for players who chose them
        "DEV_MAIL": False,  # serve the caught mail at /dev/mail (development only)
        "DEV_MAIL_DIR": "",  # where the mail catcher keeps messages; empty: instance/mail
        "DEV_CLOCK": False,  # time shifted by `cafe-server clock` (development only)
        "SIGNIN_CODE_TTL": 900,  # seconds a sign-in code stays valid
        "SIGNIN_CODES_PER_HOUR": 5,  # codes one player is sent per hour (more: none sent)
        "SIGNIN_GUESSES_PER_CLIENT": 20,  # sign-in tries per client address per hour
        "SIGNIN_GUESSES_PER_ACCOUNT": 10,  # short-code tries for one address per day (link: free)
        "SIGNUPS_PER_CLIENT": 5,  # registrations per client address per hour
        "SIGNUPS_PER_HOUR": 200,  # registrations from everyone per hour
        "CODE_REQUESTS_PER_CLIENT": 10,  # sign-in code requests per client address per hour
        "TRUSTED_PROXIES": 0,  # proxies in front whose X-Forwarded-For is believed
        "MAX_CONTENT_LENGTH": 64 * 1024,  # bytes; larger request bodies get 413
        "OUTBOX_MAX_ATTEMPTS": 8,  # delivery attempts before a message is marked failed
        "OUTBOX_BACKOFF": 30,  # seconds before the first retry, doubled each time
        "OUTBOX_LEASE": 300,  # seconds a worker owns a claimed message
        "WORKER_POLL": 2,  # seconds the worker sleeps when the outbox is empty
        "WORKER_SWEEP": 10,  # seconds between two sweeps of the clocks by one worker
        "WORKER_OUTAGE_MAX": 60,  # longest wait (s) between tries of an unreachable SMTP server
        "SQLITE_BUSY_TIMEOUT": 30_000,  # milliseconds a SQLite writer waits for the lock
        "LOG_LEVEL": "INFO",
        # retention (`server.retention`, `cafe-server purge`)
        "IDEMPOTENCY_HOURS": 24,  # idempotency keys are kept this long after use
        "MAIL_BODY_DAYS": 7,  # sent mail keeps its body this long
        "MAIL_KEEP_DAYS": 30,  # and its row (address, subject, status) this much longer
        "STRANGER_MAIL_HOURS": 24,  # records of mail from no known player
        "INBOUND_MAIL_DAYS": 30,  # records of handled replies (duplicates are recognised)
        "OPEN_GAME_DAYS": 30,  # an open game nobody joined expires
    }


def from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The settings given as `CAFE_*` variables in `environ`, converted to their types."""
    found: dict[str, Any] = {}
    for name, raw in environ.items():
        if not name.startswith("CAFE_") or name.startswith("CAFE_TEST_"):
            continue
        if name == INSTANCE_DIR_VARIABLE:  # not a setting: `instance_path()` reads it
            continue
        key = name.removeprefix("CAFE_")
        if key in CODE_ONLY_KEYS:
            raise ConfigError(f"{name} cannot be set; `cafe-server dev` runs the development mode")
        if key in INT_KEYS:
            try:
                found[key] = int(raw)
            except ValueError:
                raise ConfigError(f"{name}={raw!r} is not a whole number") from None
        elif key in BOOL_KEYS:
            if raw.strip().lower() not in (*_TRUE, *_FALSE):
                raise ConfigError(f"{name}={raw!r}: use 1 or 0")
            found[key] = raw.strip().lower() in _TRUE
        else:
            found[key] = raw
    return found


def load(
    instance_path: str | Path,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Defaults, then the environment, then `overrides`; checked before it is returned."""
    config = defaults(instance_path)
    config.update(from_environment(os.environ if environ is None else environ))
    config.update(overrides or {})
    check(config)
    if not config["MAIL_DOMAIN"]:
        config["MAIL_DOMAIN"] = parseaddr(config["MAIL_FROM"])[1].rpartition("@")[2] or "localhost"
    if not config["DEV_MAIL_DIR"]:
        config["DEV_MAIL_DIR"] = str(Path(instance_path) / "mail")
    return config


def old_secret_keys(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The earlier secret keys of `SECRET_KEY_OLD` (comma-separated), which still verify."""
    return tuple(key.strip() for key in str(config["SECRET_KEY_OLD"]).split(",") if key.strip())


def verifying_keys(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The keys a signature may be made with: the current one first, then the old ones."""
    return (config["SECRET_KEY"], *old_secret_keys(config))


def check_secret_keys(config: Mapping[str, Any]) -> None:
    """Outside development, refuse a missing, default or short key (old keys included):
    whoever knows the key can play anyone's turns by email."""
    if config["DEVELOPMENT"]:
        return
    for name, key in [("CAFE_SECRET_KEY", config["SECRET_KEY"])] + [
        ("CAFE_SECRET_KEY_OLD", old) for old in old_secret_keys(config)
    ]:
        if not key or key == DEV_SECRET_KEY or len(str(key).encode()) < MIN_SECRET_BYTES:
            raise ConfigError(
                f"{name} must be a secret of at least {MIN_SECRET_BYTES} bytes (not the "
                "development default); make one with `python -c 'import secrets; "
                "print(secrets.token_urlsafe(48))'` (`cafe-server dev` needs none)"
            )


def check(config: Mapping[str, Any]) -> None:
    """Refuse settings that would only fail later, far from their cause."""
    check_secret_keys(config)
    if config["SMTP_TLS"] not in SMTP_TLS_MODES:
        raise ConfigError(
            f"CAFE_SMTP_TLS={config['SMTP_TLS']!r}: use one of {', '.join(SMTP_TLS_MODES)}"
        )
    url = str(config["DATABASE_URL"])
    if not url.startswith(("sqlite:", "postgresql")):
        raise ConfigError(
            f"CAFE_DATABASE_URL={url!r}: use sqlite:///path/to/file.db "
            "or postgresql+psycopg://user@host/dbname"
        )
