"""`ApiClient`: the service's REST API (issue 3 §2) as Python calls, over requests.

Every request has a timeout. Only requests that are safe to repeat are retried, with
exponential backoff, after a connection failure, a timeout or a 502/503/504: GETs, DELETE,
and the turn POST, which carries an `Idempotency-Key` so that a repeat returns the first
answer instead of playing twice. An error answer becomes an `ApiError` with the server's
stable code and message; no answer at all becomes `Unreachable`, naming the URL.

Every answer says the service's time (`Server-Time`, or HTTP's `Date` from a server
without it); `now()` is that time carried forward, so deadlines read from a machine whose
clock is off, or against the development clock, show what the pages and emails show.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote

import requests

from cafe.i18n import DEFAULT
from cafe.i18n import gettext as _
from client.errors import ApiError, CliError, Unreachable

#: Seconds to wait for a connection, then for the answer.
TIMEOUT = (3.05, 20.0)
#: Tries of a repeatable request (the first one included).
ATTEMPTS = 3
#: Seconds before the first retry, doubled for each further one.
BACKOFF = 0.3
#: Answers that mean "try again shortly" (proxies and a busy database).
TRANSIENT = frozenset({502, 503, 504})

#: The answer's header that carries the service's time (ISO 8601, UTC).
SERVER_TIME = "Server-Time"


def where_the_url_comes_from() -> str:
    """Where the server's URL was set, for the errors that blame it."""
    return _(
        "(it comes from CAFE_SERVER, or from `%(command)s`)",
        command="cafe login EMAIL --server URL",
    )


class ApiClient:
    """One server and, once signed in, one player's token; every request asks for the
    server's messages in `language` (`Accept-Language`)."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: tuple[float, float] = TIMEOUT,
        attempts: int = ATTEMPTS,
        backoff: float = BACKOFF,
        language: str = DEFAULT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
        self.http = requests.Session()
        self.http.headers["User-Agent"] = "cafe-cli"
        self.http.headers["Accept-Language"] = language
        if token:
            self.http.headers["Authorization"] = f"Bearer {token}"
        #: How far the service's clock is ahead of this machine's (from the last answer).
        self.clock_offset = timedelta(0)

    def now(self) -> datetime:
        """The service's time now, as its last answer told it (this machine's clock before
        any answer)."""
        return datetime.now(UTC) + self.clock_offset

    # --- accounts ----------------------------------------------------------------------

    def register(self, name: str, email: str) -> dict[str, Any]:
        """A new player; the server mails them a sign-in code."""
        return self._json("POST", "/api/players", body={"name": name, "email": email})

    def request_code(self, email: str) -> dict[str, Any]:
        """Have a new sign-in code mailed to a registered player."""
        return self._json("POST", "/api/signin-codes", body={"email": email})

    def create_token(self, email: str, code: str, label: str) -> dict[str, Any]:
        """Exchange a sign-in code for an API token (`token`, shown only this once, and `id`)."""
        return self._json(
            "POST", "/api/tokens", body={"email": email, "code": code, "label": label}
        )

    def revoke_token(self, token_id: int) -> None:
        """Revoke one of the caller's tokens."""
        self._send("DELETE", f"/api/tokens/{token_id}", repeatable=True)

    def me(self) -> dict[str, Any]:
        """The signed-in player."""
        return self._json("GET", "/api/me", repeatable=True)

    def preferences(self) -> dict[str, Any]:
        """The caller's email preferences."""
        return self._json("GET", "/api/me/preferences", repeatable=True)

    def update_preferences(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Change some email preferences; the server answers with all of them."""
        return self._json("PATCH", "/api/me/preferences", body=changes)

    def vacation(self) -> dict[str, Any]:
        """The caller's vacation bank and declared vacation."""
        return self._json("GET", "/api/me/vacation", repeatable=True)

    def declare_vacation(self, days: int, start: str | None) -> dict[str, Any]:
        """Declare a vacation of `days` from now, or from `start` (ISO 8601)."""
        body: dict[str, Any] = {"days": days}
        if start is not None:
            body["start"] = start
        return self._json("POST", "/api/me/vacation", body=body)

    def end_vacation(self) -> dict[str, Any]:
        """End the declared vacation now."""
        return self._json("DELETE", "/api/me/vacation")

    # --- channels ----------------------------------------------------------------------

    def channels(self, league: str | None = None) -> list[dict[str, Any]]:
        """The caller's channels beyond email, or the `league`'s (its organiser's to read;
        secrets masked)."""
        return list(self._json("GET", _channels(league), repeatable=True)["channels"])

    def add_channel(self, body: dict[str, Any], league: str | None = None) -> dict[str, Any]:
        """Add a channel (`POST /api/me/channels`, or the `league`'s); a webhook's secret is
        in this answer only."""
        return self._json("POST", _channels(league), body=body)

    def remove_channel(self, channel_id: int, league: str | None = None) -> None:
        """Remove a channel (the caller's, or the `league`'s)."""
        self._send("DELETE", f"{_channels(league)}/{channel_id}", repeatable=True)

    def test_channel(self, channel_id: int, league: str | None = None) -> dict[str, Any]:
        """Send a channel (the caller's, or the `league`'s) a test message now; the
        receiver's answer."""
        return self._json("POST", f"{_channels(league)}/{channel_id}/test")

    # --- games -------------------------------------------------------------------------

    def games(self, *, status: str | None = None, mine: bool = True) -> list[dict[str, Any]]:
        """Games newest first (the caller's own by default), as summaries."""
        params = {"mine": "true" if mine else "false", "limit": "200"}
        if status is not None:
            params["status"] = status
        games: list[dict[str, Any]] = self._json(
            "GET", "/api/games", params=params, repeatable=True
        )["games"]
        return games

    def create_game(
        self,
        seats: int,
        options: dict[str, Any],
        invite: list[str],
        clock: dict[str, Any] | None = None,
        *,
        timed: bool = True,
        rated: bool = False,
        private: bool = False,
        auto_start: bool = False,
        computer: dict[str, int] | None = None,
    ) -> dict[str, Any]:
        """An open game with the caller seated: with the time control `clock` (settings not
        given take the server's defaults), or with no clock if not `timed`; a `rated` game
        updates its players' ratings when it ends, a `private` one only its players and
        invitees see, an `auto_start` one starts when its last seat is taken; `computer`
        (`seats`, `level`) seats computer players."""
        body: dict[str, Any] = {"seats": seats, "options": options, "invite": invite}
        body["clock"] = (clock or {}) if timed else None
        for flag, wanted in (("private", private), ("rated", rated), ("auto_start", auto_start)):
            if wanted:
                body[flag] = True
        if computer:
            body["computer"] = computer
        return self._json("POST", "/api/games", body=body)

    def game(self, game_id: int, etag: str | None = None) -> tuple[dict[str, Any] | None, str]:
        """The game's public state and its ETag; `None` for the state if `etag` is current."""
        headers = {"If-None-Match": etag} if etag else {}
        response = self._send("GET", f"/api/games/{game_id}", headers=headers, repeatable=True)
        tag = response.headers.get("ETag", "")
        if response.status_code == 304:
            return None, tag or (etag or "")
        return _decode(response), tag

    def join(self, game_id: int) -> dict[str, Any]:
        return self._json("POST", f"/api/games/{game_id}/join")

    def start(self, game_id: int) -> dict[str, Any]:
        return self._json("POST", f"/api/games/{game_id}/start")

    def fill_with_computers(self, game_id: int, level: int | None = None) -> dict[str, Any]:
        """Fill the open game's free seats with computer players, and start it."""
        body = {} if level is None else {"level": level}
        return self._json("POST", f"/api/games/{game_id}/computers", body=body)

    def play(self, game_id: int, turn: str, version: int, key: str) -> dict[str, Any]:
        """Play a turn made against `version`; `key` makes retries of it safe."""
        return self._json(
            "POST",
            f"/api/games/{game_id}/turns",
            body={"turn": turn, "version": version},
            headers={"Idempotency-Key": key},
            repeatable=True,
        )

    def turns(self, game_id: int) -> list[dict[str, Any]]:
        """The game's log, oldest first."""
        turns: list[dict[str, Any]] = self._json(
            "GET", f"/api/games/{game_id}/turns", repeatable=True
        )["turns"]
        return turns

    def record(self, game_id: int) -> str:
        """The text game record."""
        return self._send("GET", f"/api/games/{game_id}/record", repeatable=True).text

    def hints(self, game_id: int, n: int) -> dict[str, Any]:
        """The caller's `n` best turns, best first (`hints`: `turn`, `points`,
        `lowers_limit`, `may_name_birthday`), and `as_if_your_turn` while they wait."""
        params = {"n": str(n)}
        path = f"/api/games/{game_id}/hints"
        return self._json("GET", path, params=params, repeatable=True)

    def resign(self, game_id: int) -> dict[str, Any]:
        return self._json("POST", f"/api/games/{game_id}/resign")

    # --- table talk (docs/playing.md) ----------------------------------------------------

    def messages(self, game_id: int, after: int = 0) -> list[dict[str, Any]]:
        """The game's table talk after the message `after`, oldest first (`id`, `player`,
        `text`, `at`, `version`); those of muted players left out."""
        params = {"after": str(after)}
        path = f"/api/games/{game_id}/messages"
        said: list[dict[str, Any]] = self._json("GET", path, params=params, repeatable=True)[
            "messages"
        ]
        return said

    def say(self, game_id: int, text: str) -> dict[str, Any]:
        """Write `text` at the game's table; the message as stored."""
        return self._json("POST", f"/api/games/{game_id}/messages", body={"text": text})

    def mutes(self) -> list[str]:
        """The players the caller muted."""
        muted: list[str] = self._json("GET", "/api/me/mutes", repeatable=True)["muted"]
        return muted

    def mute(self, name: str) -> list[str]:
        """Mute a player (idempotent); the players muted now."""
        path = f"/api/me/mutes/{_segment(name)}"
        muted: list[str] = self._json("PUT", path, repeatable=True)["muted"]
        return muted

    def unmute(self, name: str) -> list[str]:
        """Hear a muted player again (idempotent); the players muted now."""
        path = f"/api/me/mutes/{_segment(name)}"
        muted: list[str] = self._json("DELETE", path, repeatable=True)["muted"]
        return muted

    # --- leagues and ratings (docs/league.md) -------------------------------------------

    def leagues(self) -> list[dict[str, Any]]:
        """Every league, oldest first, each with its newest season."""
        leagues: list[dict[str, Any]] = self._json("GET", "/api/leagues", repeatable=True)[
            "leagues"
        ]
        return leagues

    def league(self, slug: str) -> dict[str, Any]:
        """A league: its settings, organiser and seasons (oldest first)."""
        return self._json("GET", f"/api/leagues/{_segment(slug)}", repeatable=True)

    def create_league(self, settings: dict[str, Any]) -> dict[str, Any]:
        """A new league organised by the caller."""
        return self._json("POST", "/api/leagues", body=settings)

    def open_season(self, slug: str) -> dict[str, Any]:
        """Open registration for the league's next season (the organiser)."""
        return self._json("POST", f"/api/leagues/{_segment(slug)}/seasons")

    def season(self, slug: str, number: int, division: int | None = None) -> dict[str, Any]:
        """A season with its divisions (only division `division`, if given)."""
        path = f"/api/leagues/{_segment(slug)}/seasons/{number}"
        if division is not None:
            path += f"/divisions/{division}"
        return self._json("GET", path, repeatable=True)

    def season_action(self, slug: str, number: int, action: str) -> dict[str, Any]:
        """`register`, `withdraw` or `start` (the organiser) a season; the season after it."""
        return self._json("POST", f"/api/leagues/{_segment(slug)}/seasons/{number}/{action}")

    def organise(self, slug: str, number: int, action: str, body: dict[str, Any]) -> dict[str, Any]:
        """The organiser's `remove` (a member), `pause` or `resume` (the clocks) of a
        season, with `body` (the player, the reason); the season after it."""
        path = f"/api/leagues/{_segment(slug)}/seasons/{number}/{action}"
        return self._json("POST", path, body=body)

    def adjudicate(self, game_id: int, reason: str) -> dict[str, Any]:
        """End a league game with its standings as they are (its league's organiser)."""
        return self._json("POST", f"/api/games/{game_id}/adjudicate", body={"reason": reason})

    def season_log(self, slug: str, number: int) -> dict[str, Any]:
        """A season's log of its organiser's actions, oldest first."""
        path = f"/api/leagues/{_segment(slug)}/seasons/{number}/log"
        return self._json("GET", path, repeatable=True)

    def invite_to_league(self, slug: str, names: list[str]) -> list[str]:
        """Invite players to an invitation-only league (the organiser); everyone invited."""
        path = f"/api/leagues/{_segment(slug)}/invitations"
        invited: list[str] = self._json("POST", path, body={"names": names})["invited"]
        return invited

    def ratings(self, limit: int, offset: int) -> dict[str, Any]:
        """A page of the rating list, best first: `ratings` and the `total` rated."""
        params = {"limit": str(limit), "offset": str(offset)}
        return self._json("GET", "/api/ratings", params=params, repeatable=True)

    def player(self, name: str) -> dict[str, Any]:
        """A player's public profile: rating, its history, leagues, recent games."""
        return self._json("GET", f"/api/players/{_segment(name)}", repeatable=True)

    # --- transport ---------------------------------------------------------------------

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        return _decode(self._send(method, path, **kwargs))

    def _send(
        self,
        method: str,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        repeatable: bool = False,
    ) -> requests.Response:
        """One request, retried with backoff if `repeatable`; an error answer raises."""
        url = self.base_url + path
        tries = self.attempts if repeatable else 1
        for attempt in range(1, tries + 1):
            last = attempt == tries
            try:
                response = self.http.request(
                    method, url, json=body, params=params, headers=headers, timeout=self.timeout
                )
            except (requests.ConnectionError, requests.Timeout) as error:
                if last:
                    raise self._unreachable(error, repeatable) from None
            except requests.RequestException as error:  # a malformed URL, most likely
                raise CliError(
                    _(
                        "cannot send to %(url)s (%(error)s); the server URL should look like "
                        "http://host:port %(where)s",
                        url=repr(self.base_url),
                        error=error,
                        where=where_the_url_comes_from(),
                    )
                ) from None
            else:
                self._note_server_time(response)
                if response.status_code not in TRANSIENT or last:
                    if response.status_code >= 400:
                        raise _api_error(response)
                    return response
            time.sleep(self.backoff * 2 ** (attempt - 1))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _note_server_time(self, response: requests.Response) -> None:
        """Remember how far the service's clock is from ours, from the answer's header."""
        told = _server_time(response.headers)
        if told is not None:
            self.clock_offset = told - datetime.now(UTC)

    def _unreachable(self, error: requests.RequestException, repeatable: bool) -> Unreachable:
        """What to say when no answer came: too slow, no secure connection, or nobody there."""
        if isinstance(error, requests.exceptions.SSLError):
            return Unreachable(
                _(
                    "no secure connection to %(url)s: check the URL and the server's certificate",
                    url=self.base_url,
                )
            )
        if isinstance(error, requests.Timeout) and repeatable:
            return Unreachable(_("the server at %(url)s did not answer in time", url=self.base_url))
        if isinstance(error, requests.Timeout):
            return Unreachable(
                _(
                    "the server at %(url)s did not answer in time; it may or may not have "
                    "acted on the request",
                    url=self.base_url,
                )
            )
        return Unreachable(
            _(
                "cannot reach the server at %(url)s; is it running, and is the URL right? "
                "%(where)s",
                url=self.base_url,
                where=where_the_url_comes_from(),
            )
        )


def _server_time(headers: Any) -> datetime | None:
    """The service's time an answer's headers carry: `Server-Time`, else `Date` (to the
    second); None when neither can be read."""
    try:
        if headers.get(SERVER_TIME):
            return datetime.fromisoformat(headers[SERVER_TIME]).astimezone(UTC)
        if headers.get("Date"):
            return parsedate_to_datetime(headers["Date"]).astimezone(UTC)
    except (ValueError, TypeError):
        return None
    return None


def _segment(text: str) -> str:
    """`text` as one path segment: a slug or name typed with a `/` or `?` cannot reach
    another route."""
    return quote(text, safe="")


def _decode(response: requests.Response) -> dict[str, Any]:
    """The JSON object of a successful answer."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise CliError(
            _(
                "the server at %(url)s answered %(status)s without a JSON object; is that URL "
                "the Café International service?",
                url=response.url,
                status=response.status_code,
            )
        )
    return data


def _api_error(response: requests.Response) -> ApiError:
    """The error an error answer describes (`{"error": code, "message": text, …}`)."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return ApiError(response.status_code, str(data.get("error", "")), data["message"])
    snippet = " ".join(response.text.split())[:80]
    return ApiError(
        response.status_code,
        "http_error",
        _(
            "the server answered HTTP %(status)s %(reason)s: %(snippet)s",
            status=response.status_code,
            reason=response.reason,
            snippet=snippet,
        ),
    )


def _channels(league: str | None) -> str:
    """The channels' path: the caller's own, or the league `league`'s."""
    if league is None:
        return "/api/me/channels"
    return f"/api/leagues/{_segment(league)}/channels"
