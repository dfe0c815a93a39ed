"""Configuration: one frozen, typed `Settings` object, built once in the app factory.

Its values are the embedded defaults, then `CAFE_*` environment variables, then the
overrides code gives (`cafe-server dev`, the tests). The defaults run locally with no setup
(a SQLite file under `instance/`, mail to a local catcher on port 8025), so `cafe-server
dev` needs nothing but a checkout. Every setting can be changed by an environment variable
named `CAFE_<KEY>`; docs/operations.md lists them. An unknown `CAFE_*` variable (a misspelt
`CAFE_SMTP_PORT`) is refused with the closest known name, so no setting is silently lost.

The app keeps its settings in `app.extensions` (`attach`); a view reads them with
`current_settings()` and passes them down, so modules below the views take a `Settings`
argument and never read Flask's `current_app`.

The instance folder itself (the SQLite file, caught mail) is the current directory's
`instance/`, or `CAFE_INSTANCE_DIR`: never beside the code, which may be installed in a
virtual environment.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from email.utils import parseaddr
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from flask import Flask, current_app
from pydantic import BeforeValidator, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

PREFIX = "CAFE_"

#: Names the instance folder; read before the settings, whose defaults depend on it.
INSTANCE_DIR_VARIABLE = "CAFE_INSTANCE_DIR"

#: `CAFE_*` variables that are not settings but are read elsewhere, with who reads them:
#: known, so that the check for misspelt settings does not refuse them.
OTHER_VARIABLES = {
    INSTANCE_DIR_VARIABLE: "`instance_path()`, before the settings",
    "CAFE_PORT": "`cafe-server dev --port` (and `make run PORT=…`)",
    "CAFE_MAIL_PORT": "`cafe-server dev --mail-port`",
    "CAFE_BIND": "the Procfile's gunicorn address",
    "CAFE_TEST_DATABASE_URL": "the tests' PostgreSQL server",
    "CAFE_SERVER": "the `cafe` client: the service's address",
    "CAFE_TOKEN": "the `cafe` client: the player's API token",
    "CAFE_PROFILE": "the `cafe` client: the stored account to use",
    "CAFE_CONFIG_DIR": "the `cafe` client: where profiles are stored",
    "CAFE_LANG": "the `cafe` client: the language it speaks (after `--lang`)",
    "CAFE_GAME": "set by `cafe watch --exec` for its command",
}

#: The key `cafe-server dev` and the tests run with; refused anywhere else, since anyone who
#: knows it can forge reply addresses (turns by email) and unsubscribe links.
DEV_SECRET_KEY = "dev-only-secret-change-me"

#: The shortest secret key (in UTF-8 bytes) a production service starts with.
MIN_SECRET_BYTES = 32

#: Settings only code may give (`cafe-server dev`, the tests), never the environment.
CODE_ONLY_KEYS = frozenset({"DEVELOPMENT"})

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class ConfigError(ValueError):
    """A configuration value is unusable; the message names the variable and the fix."""


def _switch(value: Any) -> Any:
    """`1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off` (or empty) as a bool."""
    if not isinstance(value, str):
        return value
    word = value.strip().lower()
    if word not in (*_TRUE, *_FALSE):
        raise ValueError("use 1 or 0")
    return word in _TRUE


#: A setting that is on or off.
Switch = Annotated[bool, BeforeValidator(_switch)]

#: Values `CAFE_SMTP_TLS` may take.
SmtpTls = Literal["none", "starttls", "ssl"]
SMTP_TLS_MODES: tuple[str, ...] = get_args(SmtpTls)


class Settings(BaseSettings):
    """Every setting of the service, typed and frozen; `load()` builds it.

    A field `smtp_port` is the environment variable `CAFE_SMTP_PORT` and the override key
    `SMTP_PORT`.
    """

    model_config = SettingsConfigDict(
        env_prefix=PREFIX, frozen=True, extra="forbid", validate_default=True
    )

    database_url: str  # default: the SQLite file `cafe.db` of the instance folder
    database_pgbouncer: Switch = False  # PostgreSQL is reached through PgBouncer (transaction mode)
    secret_key: str = DEV_SECRET_KEY
    secret_key_old: str = ""  # earlier keys, comma-separated: they verify, never sign
    development: bool = False  # `cafe-server dev`: the development key is allowed
    unsubscribe_link_days: int = 90  # days an emailed unsubscribe link works
    base_url: str = "http://127.0.0.1:5000"
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 8025
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_tls: SmtpTls = "none"
    smtp_utf8: Switch = False  # the SMTP server offers SMTPUTF8: international addresses allowed
    mail_from: str = "Café International <cafe@localhost>"
    mail_domain: str = ""  # of Message-IDs and reply addresses; empty: MAIL_FROM's domain
    mail_per_minute: int = 10  # messages one recipient may be sent per minute (0: no limit)
    mail_in_max_bytes: int = 10_000_000  # larger emailed replies are refused unread
    digest_hours: int = 24  # hours between two digests for players who chose them
    dev_mail: Switch = False  # serve the caught mail at /dev/mail (development only)
    dev_mail_dir: str  # where the mail catcher keeps messages; default: instance/mail
    dev_clock: Switch = False  # time shifted by `cafe-server clock` (development only)
    signin_code_ttl: int = 900  # seconds a sign-in code stays valid
    signin_codes_per_hour: int = 5  # codes one player is sent per hour (more: none sent)
    signin_guesses_per_client: int = 20  # sign-in tries per client address per hour
    signin_guesses_per_account: int = 10  # short-code tries for one address per day (link: free)
    signups_per_client: int = 5  # registrations per client address per hour
    signups_per_hour: int = 200  # registrations from everyone per hour
    code_requests_per_client: int = 10  # sign-in code requests per client address per hour
    trusted_proxies: int = 0  # proxies in front whose X-Forwarded-For is believed
    max_content_length: int = 64 * 1024  # bytes; larger request bodies get 413
    outbox_max_attempts: int = 8  # delivery attempts before a message is marked failed
    outbox_backoff: int = 30  # seconds before the first retry, doubled each time
    outbox_lease: int = 300  # seconds a worker owns a claimed message
    worker_poll: float = 2  # seconds (a fraction too) the worker sleeps when the outbox is empty
    worker_sweep: int = 10  # seconds between two sweeps of the clocks by one worker
    worker_outage_max: int = 60  # longest wait (s) between tries of an unreachable SMTP server
    sqlite_busy_timeout: int = 30_000  # milliseconds a SQLite writer waits for the lock
    log_level: str = "INFO"
    # retention (`server.jobs.retention`, `cafe-server purge`)
    idempotency_hours: int = 24  # idempotency keys are kept this long after use
    mail_body_days: int = 7  # sent mail keeps its body this long
    mail_keep_days: int = 30  # and its row (address, subject, status) this much longer
    stranger_mail_hours: int = 24  # records of mail from no known player
    inbound_mail_days: int = 30  # records of handled replies (duplicates are recognised)
    open_game_days: int = 30  # an open game nobody joined expires
    # channels beyond email (`server.channels`)
    channels_allow: str = ""  # networks channels may reach (CIDR, comma-separated; http too)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the values given: `load()` reads the environment it is handed (the tests
        hand their own), so building a `Settings` never reads `os.environ` behind it."""
        return (init_settings,)

    @model_validator(mode="before")
    @classmethod
    def _mail_domain(cls, data: Any) -> Any:
        """An empty `MAIL_DOMAIN` is `MAIL_FROM`'s domain (or `localhost`)."""
        if isinstance(data, dict) and not data.get("mail_domain"):
            mail_from = str(data.get("mail_from", cls.model_fields["mail_from"].default))
            data = {**data, "mail_domain": parseaddr(mail_from)[1].rpartition("@")[2]}
            data["mail_domain"] = data["mail_domain"] or "localhost"
        return data

    @model_validator(mode="after")
    def _check(self) -> Settings:
        """Refuse settings that would only fail later, far from their cause."""
        check_secret_keys(self)
        if not self.database_url.startswith(("sqlite:", "postgresql")):
            raise ConfigError(
                f"CAFE_DATABASE_URL={self.database_url!r}: use sqlite:///path/to/file.db "
                "or postgresql+psycopg://user@host/dbname"
            )
        if self.database_pgbouncer and not self.database_url.startswith("postgresql"):
            raise ConfigError(
                "CAFE_DATABASE_PGBOUNCER=1 is for PostgreSQL behind PgBouncer; "
                f"CAFE_DATABASE_URL={self.database_url!r} is not PostgreSQL"
            )
        try:
            assert self.channels_allowed is not None
        except ValueError as error:
            raise ConfigError(f"CAFE_CHANNELS_ALLOW: {error}") from None
        return self

    @property
    def channels_allowed(self) -> tuple[IPv4Network | IPv6Network, ...]:
        """The networks of `CHANNELS_ALLOW` a channel may reach though the guard refuses
        them (`server.channels.guard`); a part that is not a network raises ValueError."""
        networks: list[IPv4Network | IPv6Network] = []
        for part in (part.strip() for part in self.channels_allow.split(",")):
            if part:
                try:
                    networks.append(ip_network(part, strict=True))
                except ValueError as error:
                    raise ValueError(f"{part!r} is not a network ({error})") from None
        return tuple(networks)

    @property
    def old_secret_keys(self) -> tuple[str, ...]:
        """The earlier secret keys of `SECRET_KEY_OLD` (comma-separated), which still verify."""
        return tuple(key.strip() for key in self.secret_key_old.split(",") if key.strip())

    @property
    def verifying_keys(self) -> tuple[str, ...]:
        """The keys a signature may be made with: the current one first, then the old ones."""
        return (self.secret_key, *self.old_secret_keys)

    def replace(self, **changes: Any) -> Settings:
        """These settings with `changes` (keyed like overrides: `SMTP_PORT=…`), checked again."""
        return build({**self.model_dump(), **_fields(changes)})


def _fields(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Overrides keyed by setting name (`SMTP_PORT`) as field values (`smtp_port`)."""
    return {key.lower(): value for key, value in overrides.items()}


def build(values: Mapping[str, Any]) -> Settings:
    """`Settings` from field values; a refusal is a one-line `ConfigError` naming the
    variable."""
    try:
        return Settings(**values)
    except ValidationError as error:
        raise ConfigError(_one_line(error)) from None


def _one_line(error: ValidationError) -> str:
    """The first problem of `error`, with the variable it is about."""
    problem = error.errors(include_url=False)[0]
    if not problem["loc"]:  # a check of the whole (`_check`): its own message
        cause = problem.get("ctx", {}).get("error")
        return str(cause) if cause is not None else problem["msg"]
    name = f"{PREFIX}{str(problem['loc'][0]).upper()}"
    if problem["type"] == "extra_forbidden":
        return f"{name} is not a setting{_did_you_mean(name)}"
    message = problem["msg"].removeprefix("Value error, ")
    return f"{name}={problem['input']!r}: {message}"


def known_variables() -> frozenset[str]:
    """Every `CAFE_*` variable the project reads: the settings and `OTHER_VARIABLES`."""
    settings = {f"{PREFIX}{name.upper()}" for name in Settings.model_fields}
    return frozenset(settings | set(OTHER_VARIABLES))


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, sorted(known_variables()), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def check_variables(environ: Mapping[str, str]) -> None:
    """Refuse an unknown `CAFE_*` variable in `environ`: a misspelt setting would otherwise
    be ignored without a word."""
    known = known_variables()
    for name in sorted(environ):
        if not name.startswith(PREFIX):
            continue
        if name.removeprefix(PREFIX) in CODE_ONLY_KEYS:
            raise ConfigError(f"{name} cannot be set; `cafe-server dev` runs the development mode")
        if name not in known:
            raise ConfigError(f"unknown variable {name}{_did_you_mean(name)}")


class _Environment(EnvSettingsSource):
    """The `CAFE_*` settings of a given environment (pydantic-settings reads `os.environ`)."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(Settings)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return {name.lower(): value for name, value in self._environ.items()}


def instance_path(environ: Mapping[str, str] | None = None) -> Path:
    """The instance folder, absolute (as Flask wants it): `CAFE_INSTANCE_DIR` if set, else
    `instance/` in the current directory."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(INSTANCE_DIR_VARIABLE) or "instance").expanduser().resolve()


def defaults(instance_path: str | Path) -> dict[str, Any]:
    """The defaults that depend on the instance folder, keyed like overrides."""
    return {
        "DATABASE_URL": f"sqlite:///{Path(instance_path) / 'cafe.db'}",
        "DEV_MAIL_DIR": str(Path(instance_path) / "mail"),
    }


def load(
    instance_path: str | Path,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Defaults, then the environment, then `overrides` (keyed `SMTP_PORT`, …); checked.

    An unknown `CAFE_*` variable is refused, as is any value of the wrong type."""
    environ = os.environ if environ is None else environ
    check_variables(environ)
    given = {
        **_fields(defaults(instance_path)),
        **_Environment(environ)(),
        **_fields(overrides or {}),
    }
    given = {key: value for key, value in given.items() if value != "" or key not in _DERIVED}
    return build(given)


#: Settings whose empty value means "work it out" rather than "empty".
_DERIVED = frozenset({"dev_mail_dir"})


def check_secret_keys(settings: Settings) -> None:
    """Outside development, refuse a missing, default or short key (old keys included):
    whoever knows the key can play anyone's turns by email."""
    if settings.development:
        return
    for name, key in [("CAFE_SECRET_KEY", settings.secret_key)] + [
        ("CAFE_SECRET_KEY_OLD", old) for old in settings.old_secret_keys
    ]:
        if not key or key == DEV_SECRET_KEY or len(key.encode()) < MIN_SECRET_BYTES:
            raise ConfigError(
                f"{name} must be a secret of at least {MIN_SECRET_BYTES} bytes (not the "
                "development default); make one with `python -c 'import secrets; "
                "print(secrets.token_urlsafe(48))'` (`cafe-server dev` needs none)"
            )


#: Where an app keeps its settings (`app.extensions`).
_EXTENSION = "cafe.settings"


def attach(app: Flask, settings: Settings) -> None:
    """Give `app` its settings, and Flask the two of them it reads itself (the session
    cookie's key, the largest request body)."""
    app.extensions[_EXTENSION] = settings
    app.config.update(
        SECRET_KEY=settings.secret_key, MAX_CONTENT_LENGTH=settings.max_content_length
    )


def settings_of(app: Flask) -> Settings:
    """The settings `app` was built with."""
    settings: Settings = app.extensions[_EXTENSION]
    return settings


def current_settings() -> Settings:
    """The settings of the app handling this request (for views, which pass them down)."""
    return settings_of(current_app)
