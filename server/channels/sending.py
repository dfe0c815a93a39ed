"""One HTTP request to a channel, to the address the guard checked (`server.channels.guard`).

The connection goes to `Target.address`; TLS's SNI and certificate check use the name
(`Target.host`) and so does `Host`: the name is not resolved again, so a DNS answer that
changes after the check cannot redirect the request. No redirect is followed, no proxy of
the environment is used, and an attempt takes at most `TIMEOUT` seconds in all (connecting,
sending and reading the answer). What the receiver answered is kept short: its status, its
`Retry-After` and the first `BODY_SHOWN` characters of its body.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import requests
from requests.adapters import HTTPAdapter

from cafe.i18n import gettext as _
from server.channels.guard import Target

if TYPE_CHECKING:
    from requests.adapters import _HostParams, _PoolKwargs

#: Seconds one attempt may take in all.
TIMEOUT = 10.0
#: Characters of a receiver's answer kept (shown by "send a test").
BODY_SHOWN = 200
_BODY_READ = 4096


class PinnedRequest(requests.PreparedRequest):
    """A prepared request that carries the checked address it must connect to."""

    address: str = ""


class PinnedAdapter(HTTPAdapter):
    """An adapter whose connection pools are keyed by the checked address, with the TLS
    name (SNI, certificate) the URL's host: the approach of `requests-hardened`."""

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
    ) -> tuple[_HostParams, _PoolKwargs]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        address = getattr(request, "address", "")
        if not address:  # never connect to a name this module did not check
            raise requests.exceptions.InvalidURL("no checked address")
        if host_params["scheme"] == "https":
            # urllib3's HTTPSConnectionPool takes both; requests' stub does not list them
            pool_kwargs["assert_hostname"] = host_params["host"]  # type: ignore[typeddict-unknown-key]
            pool_kwargs["server_hostname"] = host_params["host"]  # type: ignore[typeddict-unknown-key]
        host_params["host"] = address
        return host_params, pool_kwargs

    def get_connection(self, url: Any, proxies: Any = None) -> Any:
        """Refused: only `get_connection_with_tls_context` pins the address."""
        raise NotImplementedError("use get_connection_with_tls_context")


#: One adapter for the process: its pools are thread-safe, so workers' threads share them.
_ADAPTER = PinnedAdapter(pool_connections=64, pool_maxsize=64, max_retries=0)


@dataclass(frozen=True, slots=True)
class Answer:
    """What came of one attempt: the status (None: no answer), the start of the body, the
    `Retry-After` header, and an error when nothing was answered."""

    status: int | None
    body: str = ""
    retry_after: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Delivered: a 2xx answer (a redirect is not)."""
        return self.status is not None and 200 <= self.status < 300

    def summary(self) -> str:
        """One line for `last_error` and the test's report (no URL: it is a secret)."""
        if self.status is None:
            return self.error or _("no answer")
        return f"HTTP {self.status}: {self.body}".strip()


def _host_header(target: Target) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


def send(
    method: str,
    target: Target,
    *,
    body: bytes,
    headers: dict[str, str],
    url: str | None = None,
    timeout: float = TIMEOUT,
) -> Answer:
    """Make one request to `target` (at `url`, a path under its host, if given) and say what
    the receiver answered."""
    request = PinnedRequest()
    request.prepare(
        method=method,
        url=url or target.url,
        headers={
            **headers,
            "Host": _host_header(target),
            "User-Agent": "cafe-international-channels",
        },
        data=body,
    )
    request.address = target.address
    deadline = time.monotonic() + timeout
    try:
        response = _ADAPTER.send(request, stream=True, timeout=(timeout, timeout), verify=True)
    except requests.exceptions.Timeout:
        return Answer(
            status=None, error=_("no answer within %(seconds)s s", seconds=format(timeout, "g"))
        )
    except requests.exceptions.SSLError:
        return Answer(status=None, error=_("the TLS handshake or certificate check failed"))
    except requests.exceptions.ConnectionError:
        return Answer(status=None, error=_("the connection was refused or broken"))
    try:
        chunks: list[bytes] = []
        read = 0
        for chunk in response.iter_content(1024):
            chunks.append(chunk)
            read += len(chunk)
            if read >= _BODY_READ or time.monotonic() > deadline:
                break
    except requests.exceptions.RequestException:
        chunks = []
    finally:
        response.close()
    text = b"".join(chunks).decode("utf-8", "replace")[:BODY_SHOWN]
    return Answer(
        status=response.status_code, body=text, retry_after=response.headers.get("Retry-After")
    )
