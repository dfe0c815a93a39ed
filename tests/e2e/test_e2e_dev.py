"""`cafe-server dev` (what `make run` starts): one command brings up the database, the web
app, the worker and the mail catcher; a newcomer registers and reads the code on screen;
a whole league registers from one machine, and the operator's commands started beside it
act on it without a secret key."""

from __future__ import annotations

import email
import email.policy
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

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


def start_dev(*args: str, env: dict[str, str], output: Path) -> subprocess.Popen:
    """`cafe-server dev ARGS…` in its own process, its output in `output`."""
    with output.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-c", "from server.cli import main; main()", "dev", *args],
            env=env, stdout=sink, stderr=subprocess.STDOUT,
        )  # fmt: skip


def wait_until_healthy(base: str) -> None:
    def healthy() -> bool:
        try:
            return requests.get(f"{base}/healthz", timeout=2).ok
        except requests.RequestException:
            return False

    wait_for(healthy, "the web app")


def test_dev_runs_everything_and_prints_the_mail(tmp_path):
    port, mail_port = free_port(), free_port()
    output = tmp_path / "dev.out"
    env = {**os.environ, "CAFE_DATABASE_URL": f"sqlite:///{tmp_path / 'dev.db'}"}
    process = start_dev("--port", str(port), "--mail-port", str(mail_port),
                        "--mail-dir", str(tmp_path / "mail"), env=env, output=output)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base)
        banner = output.read_text()
        assert f"{base}/api" in banner and f"smtp://127.0.0.1:{mail_port}" in banner
        first = banner[banner.index("running (development mode)") :].splitlines()[1]
        assert first.split()[:2] == ["web", f"{base}/"]  # the web address comes first
        # a new database runs every migration: none of them talks above the banner
        assert "Running upgrade" not in banner and "SAWarning" not in banner
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


def operator(*args: str, env: dict[str, str], stdin: bytes = b"") -> subprocess.CompletedProcess:
    """`cafe-server ARGS…` in another process, as a second terminal would run it."""
    return subprocess.run(
        [sys.executable, "-c", "from server.cli import main; main()", *args],
        env=env, input=stdin, capture_output=True, timeout=60, check=False,
    )  # fmt: skip


def the_reply_to(mail: Path, address: str) -> tuple[str, str]:
    """The newest caught "your turn" email to `address`: its signed reply address and
    subject."""

    def found() -> tuple[str, str] | None:
        for path in sorted(mail.glob("*.eml"), key=lambda p: p.stat().st_mtime, reverse=True):
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if message["To"] == address and message["Reply-To"]:
                return str(message["Reply-To"]), str(message["Subject"])
        return None

    return wait_for(found, f"a your-turn email to {address}")


def test_a_whole_league_registers_and_the_operator_commands_act_on_the_dev_server(tmp_path):
    """`make run PORT=…` and its settings: 20 players register and sign in from this
    machine; `cafe-server players add`, `clock advance` and `mail-in` started beside it,
    with no secret key, act on the development service, and an emailed reply is played."""
    port, mail_port = free_port(), free_port()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("CAFE_") or key.startswith("CAFE_TEST_")}  # fmt: skip
    env |= {"CAFE_INSTANCE_DIR": str(tmp_path / "instance"), "CAFE_LOG_LEVEL": "WARNING"}
    output = tmp_path / "dev.out"
    ports = {"CAFE_PORT": str(port), "CAFE_MAIL_PORT": str(mail_port)}  # as make run PORT=…
    process = start_dev(env=env | ports, output=output)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(base)
        wait_for((tmp_path / "instance" / "dev-server.json").exists, "its note")
        tokens = {}
        for number in range(20):
            name = f"player{number:02d}"
            answer = requests.post(f"{base}/api/players", json={"name": name,
                                   "email": f"{name}@example.com"}, timeout=10)  # fmt: skip
            assert answer.status_code == 202, (number, answer.text)
            code = wait_for(
                lambda name=name: re.search(
                    rf"^mail \d+ to {name}@example.com: .* — code (\d{{10}}) ",
                    output.read_text(),
                    re.M,
                ),
                f"{name}'s code",
            ).group(1)
            signed = {"email": f"{name}@example.com", "code": code}
            signed_in = requests.post(f"{base}/api/tokens", json=signed, timeout=10)
            assert signed_in.status_code == 201, (number, signed_in.text)
            tokens[name] = signed_in.json()["token"]

        added = operator("players", "add", "latecomer", "latecomer@example.com", env=env)
        assert added.returncode == 0, added.stderr
        assert added.stdout.decode().startswith("player 21: latecomer <latecomer@example.com>")
        assert f"`cafe-server dev` runs here ({base})" in added.stderr.decode()

        advanced = operator("clock", "advance", "1d", env=env)
        assert advanced.returncode == 0, advanced.stderr
        assert "(system time +1 day" in advanced.stdout.decode()
        assert requests.get(f"{base}/healthz", timeout=5).json()["dev_clock"]

        ann, bob = (f"Bearer {tokens[name]}" for name in ("player00", "player01"))
        game = requests.post(f"{base}/api/games", headers={"Authorization": ann}, timeout=10,
                             json={"seats": 2, "options": {}}).json()  # fmt: skip
        requests.post(f"{base}/api/games/{game['id']}/join", headers={"Authorization": bob})
        started = requests.post(f"{base}/api/games/{game['id']}/start",
                                headers={"Authorization": ann}, timeout=10).json()  # fmt: skip
        mover = started["to_move"]
        reply_to, subject = the_reply_to(tmp_path / "instance" / "mail", f"{mover}@example.com")
        reply = (
            f"From: {mover}@example.com\r\nTo: {reply_to}\r\nSubject: Re: {subject}\r\n"
            f"Message-ID: <reply-1@example.com>\r\n\r\n1\r\n\r\n> the your-turn email\r\n"
        )
        played = operator("mail-in", "--to", reply_to, "--sender", f"{mover}@example.com",
                          env=env, stdin=reply.encode())  # fmt: skip
        assert played.returncode == 0, played.stderr
        assert played.stdout.decode().startswith("applied: "), played.stdout
        after = requests.get(f"{base}/api/games/{game['id']}", headers={"Authorization": ann})
        assert after.json()["version"] == started["version"] + 1
    finally:
        process.send_signal(signal.SIGTERM)  # `kill`: stopped as Ctrl-C stops it
        process.wait(timeout=15)
    assert not (tmp_path / "instance" / "dev-server.json").exists()  # gone with the service
    stopped = operator("players", "add", "nobody", "nobody@example.com", env=env)
    assert stopped.returncode == 1 and b"CAFE_SECRET_KEY" in stopped.stderr
