"""`ApiClient`'s transport: timeouts, retries with backoff only for repeatable requests,
and error answers that are not the service's JSON. A scripted HTTP server stands in."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from client.api import ApiClient
from client.errors import ApiError, CliError, ExitCode, Unreachable


class Script:
    """Answers to give, in order (status, body, delay in seconds); requests seen."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, str, float]] = []
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.bodies: list[bytes] = []


@pytest.fixture
def scripted() -> Iterator[tuple[Script, str]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            script.bodies.append(self.rfile.read(length))
            script.seen.append((self.command, self.path, dict(self.headers)))
            status, body, delay = script.answers.pop(0) if script.answers else (200, "{}", 0)
            time.sleep(delay)
            data = body.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up waiting
                pass

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield script, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def client(url: str, **kwargs: object) -> ApiClient:
    return ApiClient(url, "cafe_token", backoff=0.01, **kwargs)  # type: ignore[arg-type]


def test_a_get_is_retried_after_503_and_sends_the_token(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    script.answers = [(503, "{}", 0), (502, "busy", 0), (200, '{"name": "ann"}', 0)]
    assert client(url).me() == {"name": "ann"}
    assert len(script.seen) == 3
    assert script.seen[0][2]["Authorization"] == "Bearer cafe_token"


def test_a_post_that_is_not_repeatable_is_sent_once(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    script.answers = [(503, '{"error": "unavailable", "message": "busy; retry"}', 0)]
    with pytest.raises(ApiError) as refused:
        client(url).join(7)
    assert (refused.value.status, refused.value.error, refused.value.message) == (
        503,
        "unavailable",
        "busy; retry",
    )
    assert len(script.seen) == 1


def test_the_turn_post_is_retried_with_the_same_idempotency_key(
    scripted: tuple[Script, str],
) -> None:
    script, url = scripted
    script.answers = [(504, "", 0), (201, '{"points": 4}', 0)]
    assert client(url).play(3, "bar DEf", 9, "key-1") == {"points": 4}
    keys = [headers["Idempotency-Key"] for _, _, headers in script.seen]
    assert keys == ["key-1", "key-1"]


def test_retries_give_up_after_the_last_attempt(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    script.answers = [(503, '{"error": "unavailable", "message": "still busy"}', 0)] * 3
    with pytest.raises(ApiError, match="still busy"):
        client(url).games()
    assert len(script.seen) == 3


def test_a_slow_server_times_out_as_unreachable(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    script.answers = [(200, "{}", 1.0)]
    with pytest.raises(Unreachable) as away:
        client(url, timeout=(1.0, 0.2)).start(5)
    assert away.value.code == ExitCode.UNREACHABLE
    assert away.value.message == (
        f"the server at {url} did not answer in time; it may or may not have acted on the request"
    )


def test_an_error_page_that_is_not_json_is_described(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    script.answers = [(404, "<html><h1>Not Found</h1></html>", 0)]
    with pytest.raises(ApiError) as refused:
        client(url).hints(1, 3)
    assert refused.value.message == (
        "the server answered HTTP 404 Not Found: <html><h1>Not Found</h1></html>"
    )


def test_a_success_that_is_not_json_is_not_the_service(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    script.answers = [(200, "<html>welcome</html>", 0)]
    with pytest.raises(CliError, match="is that URL the Café International service"):
        client(url).me()


def test_a_304_keeps_the_etag(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    script.answers = [(304, "", 0)]
    assert client(url).game(4, etag='"g4-v2-p1"') == (None, '"g4-v2-p1"')
    assert script.seen[0][2]["If-None-Match"] == '"g4-v2-p1"'


def test_the_request_bodies_are_json(scripted: tuple[Script, str]) -> None:
    script, url = scripted
    client(url).create_game(3, {"birthday": None, "coffee_klatsch": True}, ["bob"])
    method, path, headers = script.seen[0]
    assert (method, path, headers["Content-Type"]) == ("POST", "/api/games", "application/json")
    assert json.loads(script.bodies[0]) == {
        "seats": 3,
        "options": {"birthday": None, "coffee_klatsch": True},
        "invite": ["bob"],
        "clock": {},  # the server's default time control
    }
