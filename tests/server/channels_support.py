"""A loopback receiver for the channels' tests: an HTTP server on 127.0.0.1 (or another
loopback address) that records every request (method, path, headers, body) and answers as
told (a status, headers, a body, a delay). Never a stub of the sender: the requests cross a
real socket."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    """One request the receiver got."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"ok"
    delay: float = 0.0


@dataclass
class Receiver:
    """The server, what it received, and how it answers (`answer`, per request)."""

    host: str
    port: int
    received: list[Received] = field(default_factory=list)
    answer: Callable[[Received], Reply] = lambda _request: Reply()

    def url(self, path: str = "/hook") -> str:
        return f"http://{self.host}:{self.port}{path}"


@contextmanager
def hook_receiver(host: str = "127.0.0.1") -> Iterator[Receiver]:
    """A running receiver on `host`, stopped at the end."""
    state = Receiver(host=host, port=0)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = Received(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length),
                at=time.monotonic(),
            )
            with lock:
                state.received.append(request)
            reply = state.answer(request)
            if reply.delay:
                time.sleep(reply.delay)
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_POST = do_PUT = do_GET = _any

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    server = ThreadingHTTPServer((host, 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def fake_resolver(answers: dict[str, list[str]]) -> Callable[[str, int], list[str]]:
    """A resolver answering from `answers` (a name it does not know: nothing)."""

    def resolve(host: str, port: int) -> list[str]:
        return list(answers.get(host, []))

    return resolve
