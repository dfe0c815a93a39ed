"""gunicorn's settings beyond the Procfile's command line, which names them
(`--config python:server.gunicorn_config`), so that they ship in the package.

- New connections are shared evenly between the worker processes
  (`BalancedThreadWorker`). A client keeps its connection for many requests (nginx keeps
  up to 16 open to gunicorn, `deploy/nginx.conf`), and gunicorn's threaded worker takes
  every connection it sees first: with four clients, one process often held three or all
  four, so their requests queued for that process's one interpreter lock while the other
  process idled: the slowest requests.
- Each worker freezes the objects that exist once the app is built (`gc.freeze`): the
  garbage collector's full pass over them (modules, routes, models: 0.1 s) would
  otherwise stop a request now and then; they live as long as the process anyway.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from gunicorn.workers.base import Worker
from gunicorn.workers.gthread import ThreadWorker

#: How long a worker leaves a new connection waiting for a less busy worker, per
#: connection it already holds, and at most.
WAIT_PER_CONNECTION = 0.001
MAX_WAIT = 0.005


class BalancedThreadWorker(ThreadWorker):
    """gunicorn's threaded worker (`gthread`), but one that already holds connections
    leaves a new one for a moment (`WAIT_PER_CONNECTION` per connection held, up to
    `MAX_WAIT`) to a worker holding fewer, and takes it itself only if it is still
    waiting then. The least busy worker thus takes it first; an idle one at once (and a
    lone worker always)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._resume_at: float | None = None  # listening paused until then
        self._waited = False  # a connection has waited its time: take it

    def accept(self, listener: Any) -> None:
        if self.nr_conns == 0 or self._waited or self.cfg.workers < 2:
            self._waited = False
            super().accept(listener)
            return
        wait = min(MAX_WAIT, WAIT_PER_CONNECTION * self.nr_conns)
        self._resume_at = time.monotonic() + wait
        super().set_accept_enabled(False)

    def set_accept_enabled(self, enabled: bool) -> None:
        if enabled and self._resume_at is not None:
            if time.monotonic() < self._resume_at:
                return  # still leaving the waiting connection to the others
            self._resume_at = None
            self._waited = True
        super().set_accept_enabled(enabled)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        if self._waited:
            timeout = 0.0  # the connection that waited: take it now, if nobody did
        elif self._resume_at is not None:
            timeout = max(0.0, min(timeout, self._resume_at - time.monotonic()))
        super().wait_for_and_dispatch_events(timeout)
        self._waited = False


worker_class = BalancedThreadWorker


def post_worker_init(worker: Worker) -> None:
    """After the worker has built the app: keep its objects out of garbage collection."""
    gc.freeze()
