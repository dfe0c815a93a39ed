"""The user's configuration: one profile per account and server, kept in the config dir.

Two files in the directory (`CAFE_CONFIG_DIR`, else the platform's config dir for `cafe`):
`config.json` holds each profile's server, email and player name; `credentials.json` holds
the API tokens, so that the harmless half can be shown or shared without the secret half.
Both are written with mode 0600 (readable by the owner only). Light on purpose: every
command imports this module (and `cafe --help`, for the default profile's name), so `json`
loads only when a file is read or written.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from typer import get_app_dir

from cafe.i18n import gettext as _
from client.errors import CliError

APP_NAME = "cafe"
DEFAULT_PROFILE = "default"
DEFAULT_SERVER = "http://127.0.0.1:5000"
CONFIG_FILE = "config.json"
CREDENTIALS_FILE = "credentials.json"


@dataclass
class Profile:
    """What one profile remembers; `None` where nothing is stored yet."""

    name: str
    server: str | None = None
    email: str | None = None
    player: str | None = None
    token: str | None = None
    token_id: int | None = None
    awaiting_code: bool = False  # `register` mailed a code that `login` has not used yet
    language: str | None = None  # the one the player chose (`client.language`)


def config_dir(environ: Mapping[str, str]) -> Path:
    """`CAFE_CONFIG_DIR`, else the platform's per-user config directory for `cafe`."""
    override = environ.get("CAFE_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    return Path(get_app_dir(APP_NAME))


class Store:
    """Reads and writes profiles in a config directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load(self, name: str) -> Profile:
        """The profile called `name` (empty if it was never saved)."""
        settings = self._read(CONFIG_FILE).get("profiles", {}).get(name, {})
        secret = self._read(CREDENTIALS_FILE).get(name, {})
        known = {f.name for f in fields(Profile)}
        stored = {k: v for k, v in settings.items() if k in known}
        return Profile(name=name, **stored, token=secret.get("token"), token_id=secret.get("id"))

    def language(self, name: str) -> str | None:
        """The language the profile called `name` stored, if any: what `cafe` speaks when
        neither `--lang` nor `CAFE_LANG` says (read before the commands are built)."""
        stored = self._read(CONFIG_FILE).get("profiles", {}).get(name, {}).get("language")
        return stored if isinstance(stored, str) else None

    def save(self, profile: Profile) -> None:
        """Write `profile` back: settings to config.json, the token to credentials.json."""
        settings = asdict(profile)
        for key in ("name", "token", "token_id"):
            settings.pop(key)
        config = self._read(CONFIG_FILE)
        config.setdefault("profiles", {})[profile.name] = settings
        self._write(CONFIG_FILE, config)
        credentials = self._read(CREDENTIALS_FILE)
        if profile.token is None:
            credentials.pop(profile.name, None)
        else:
            credentials[profile.name] = {"token": profile.token, "id": profile.token_id}
        self._write(CREDENTIALS_FILE, credentials)

    def _read(self, filename: str) -> dict[str, Any]:
        path = self.directory / filename
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}  # `cafe --help` before any profile is stored imports no JSON
        except (OSError, ValueError) as error:
            raise CliError(
                _("cannot read %(path)s (%(error)s); fix or delete it", path=path, error=error)
            ) from None
        import json  # noqa: PLC0415 (see the module's docstring)

        try:
            data = json.loads(text)
        except ValueError as error:
            raise CliError(
                _("cannot read %(path)s (%(error)s); fix or delete it", path=path, error=error)
            ) from None
        if not isinstance(data, dict):
            raise CliError(_("%(path)s is not a JSON object; fix or delete it", path=path))
        return data

    def _write(self, filename: str, data: dict[str, Any]) -> None:
        """Replace the file atomically, created with mode 0600 (never readable by others)."""
        import json  # noqa: PLC0415 (see the module's docstring)

        path = self.directory / filename
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            temporary = path.with_suffix(".tmp")
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                json.dump(data, file, indent=2, sort_keys=True)
                file.write("\n")
            os.chmod(temporary, 0o600)  # in case the file existed with wider permissions
            os.replace(temporary, path)
        except OSError as error:
            raise CliError(
                _("cannot write %(path)s: %(error)s", path=path, error=error.strerror or error)
            ) from None
