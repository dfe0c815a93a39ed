"""One run of `cafe`: the chosen profile with the environment's overrides, and its API client.

`CAFE_SERVER` and `CAFE_TOKEN` win over what the profile stores (for scripts, bots and
CI), but are never written back into it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cafe.i18n import current
from cafe.i18n import gettext as _
from client.config import DEFAULT_PROFILE, DEFAULT_SERVER, Profile, Store, config_dir
from client.errors import NotSignedIn

if TYPE_CHECKING:
    from client.api import ApiClient


class Session:
    """The profile in use and how to reach its server."""

    def __init__(self, store: Store, profile: Profile, environ: Mapping[str, str]) -> None:
        self.store = store
        self.profile = profile
        self.environ = environ

    @classmethod
    def open(cls, profile: str, environ: Mapping[str, str]) -> Session:
        """The session for profile `profile` under the config dir `environ` points to."""
        store = Store(config_dir(environ))
        return cls(store, store.load(profile), environ)

    @property
    def server(self) -> str:
        """`CAFE_SERVER`, else the profile's server, else the local development server."""
        return self.environ.get("CAFE_SERVER") or self.profile.server or DEFAULT_SERVER

    @property
    def token_from_environment(self) -> bool:
        return bool(self.environ.get("CAFE_TOKEN"))

    @property
    def token(self) -> str | None:
        return self.environ.get("CAFE_TOKEN") or self.profile.token

    def client(self, server: str | None = None, token: str | None = None) -> ApiClient:
        """A client for `server` (default: the session's), sending `token` if given, that asks
        for the server's messages in the language in use (the run's, `client.language`)."""
        from client.api import ApiClient  # noqa: PLC0415 (requests loads only when used)

        return ApiClient(server or self.server, token, language=current())

    def api(self) -> ApiClient:
        """A client that acts as the signed-in player; `NotSignedIn` when there is no token."""
        if not self.token:
            raise NotSignedIn(
                _(
                    "you are not signed in%(profile)s: run `%(login)s` (or `%(register)s` first)",
                    profile=self.profile_note(),
                    login=self.login_command(),
                    register="cafe register NAME EMAIL",
                )
            )
        return self.client(token=self.token)

    def player_name(self, api: ApiClient) -> str:
        """The signed-in player's name: remembered at login, asked for with a foreign token."""
        if self.profile.player and not self.token_from_environment:
            return self.profile.player
        return str(api.me()["name"])

    def login_command(self, email: str | None = None) -> str:
        """The command that signs this profile in (again)."""
        option = "" if self.profile.name == DEFAULT_PROFILE else f" --profile {self.profile.name}"
        return f"cafe{option} login {email or self.profile.email or 'EMAIL'}"

    def save(self) -> None:
        self.store.save(self.profile)

    def profile_note(self) -> str:
        """` (profile NAME)` for any profile but the default one."""
        if self.profile.name == DEFAULT_PROFILE:
            return ""
        return _(" (profile %(name)s)", name=self.profile.name)
