"""The documented deployment as processes, for the tests and benchmarks that run it:
gunicorn started by the Procfile's `web` line (on loopback) and nginx with
`deploy/nginx.conf`, its port and upstream moved to free ones. Used by
`tests/e2e/test_serving.py` and `benchmarks/attack.py`."""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]


def procfile_web() -> str:
    """The Procfile's `web` command."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        if line.startswith("web:"):
            return line.removeprefix("web:").strip()
    raise AssertionError("the Procfile has no web process")


def wait_healthy(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until `base`/healthz answers (at most 30 s); fail if `process` ends first."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text(errors="replace")
        try:
            if requests.get(f"{base}/healthz", timeout=2).ok:
                return
        except requests.RequestException:
            time.sleep(0.1)
    raise AssertionError(f"{base} did not come up; see {log}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group; SIGKILL it if it lingers."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def start_web(env: Mapping[str, str], port: int, log: Path) -> tuple[str, subprocess.Popen[bytes]]:
    """gunicorn as the Procfile's `web` line starts it, on 127.0.0.1:`port`, with `env`'s
    settings (the venv's commands first on PATH); its base URL and process, once healthy."""
    environment = {
        **env,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', os.environ['PATH'])}",
        "PORT": str(port),
    }
    environment.pop("CAFE_BIND", None)
    with log.open("ab") as sink:
        process = subprocess.Popen(
            ["sh", "-c", f"exec {procfile_web()}"],
            env=environment, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, process, log)
    except BaseException:
        stop(process)
        raise
    return base, process


def nginx_binary() -> str | None:
    """The nginx program, if installed."""
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).exists()), None
    )


def start_nginx(
    binary: str, folder: Path, port: int, upstream: str
) -> tuple[str, subprocess.Popen[bytes]]:
    """nginx with `deploy/nginx.conf`, listening on 127.0.0.1:`port` and passing to
    `upstream` (host:port), its files in `folder`; its base URL and process, once healthy."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "listen 80;" in site and "server 127.0.0.1:8000;" in site
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    site = site.replace("server 127.0.0.1:8000;", f"server {upstream};")
    (folder / "cafe.conf").write_text(site)
    temp = folder / "temp"
    temp.mkdir(exist_ok=True)
    (folder / "nginx.conf").write_text(
        # workers as this user (nginx would switch root's to `nobody`, shut out of `folder`)
        f"daemon off;\nuser {getpass.getuser()};\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\n"
        "events { worker_connections 1024; }\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {temp};\n"
        f"  proxy_temp_path {temp};\n  include {folder / 'cafe.conf'};\n}}\n"
    )
    log = folder / "nginx.out"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [binary, "-p", str(folder), "-c", str(folder / "nginx.conf")],
            stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, process, log)
    except BaseException:
        stop(process)
        raise
    return base, process
