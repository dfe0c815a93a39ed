"""`cafe-server dev` (what `make run` starts): one command brings up the database, the web
app, the worker and the mail catcher; a newcomer registers and reads the code on screen."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import requests
from e2e_support import free_port


def wait_for(predicate, what: str, seconds: float = 30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_dev_runs_everything_and_prints_the_mail(tmp_path):
    port, mail_port = free_port(), free_port()
    output = tmp_path / "dev.out"
    env = {**os.environ, "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'dev.db'}"}
    with output.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-c", "from server.cli import main; main()", "dev",
             "--port", str(port), "--mail-port", str(mail_port),
             "--mail-dir", str(tmp_path / "mail")],
            env=env, stdout=sink, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:

        def healthy() -> bool:
            try:
                return requests.get(f"{base}/healthz", timeout=2).ok
            except requests.RequestException:
                return False

        wait_for(healthy, "the web app")
        banner = output.read_text()
        assert f"{base}/api" in banner and f"smtp://127.0.0.1:{mail_port}" in banner
        first = banner[banner.index("running (development mode)") :].splitlines()[1]
        assert first.split()[:2] == ["web", f"{base}/"]  # the web address comes first
        assert f"next: cafe register NAME EMAIL --server {base}" in banner
        home = requests.get(f"{base}/", timeout=5)
        assert home.headers["Content-Type"].startswith("text/html")
        assert "Café International" in home.text
        email = "newcomer@example.com"
        assert requests.post(f"{base}/api/players", json={"name": "newcomer", "email": email}).ok
        line = wait_for(
            lambda: re.search(r"^mail 1 to newcomer@example.com: .*$", output.read_text(), re.M),
            "the sign-in email's line on screen",
        ).group(0)
        assert line.endswith("  (/dev/mail/1)")  # one line: the full text is in the folder
        code = re.search(r" — code (\d{10}) ", line).group(1)
        token = requests.post(f"{base}/api/tokens", json={"email": email, "code": code})
        assert token.status_code == 201
        assert (tmp_path / "dev.db").exists()
        assert len(list((tmp_path / "mail").glob("*.eml"))) == 1
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=15)
