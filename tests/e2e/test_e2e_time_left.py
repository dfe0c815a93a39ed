"""Time left on the development clock (issue 20 §7): with the clock moved on by `cafe-server
clock advance`, gunicorn's HTTP `Date` still says the system's time, but every answer's
`Server-Time` says the service's, and `cafe show` and `cafe games` compute the time left
from it — what the game's page shows — marked `!` with less than a day left."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

import requests
from e2e_support import cafe_server, free_port, worker_environment

from cafe.render import quantities

CAFE = Path(sys.executable).parent / "cafe"


def server_time(response: requests.Response) -> datetime:
    return datetime.fromisoformat(response.headers["Server-Time"])


def test_cafe_shows_the_time_left_the_page_shows_on_the_development_clock(
    dev_client, database_url, tmp_path
):
    client = dev_client
    game_id = client.new_game("amy", "ben")
    state = client.state(game_id)
    deadline = datetime.fromisoformat(state["deadline"])
    env = worker_environment(database_url, free_port())
    moved = subprocess.run(
        cafe_server("clock", "advance", "2d1h"), env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert moved.returncode == 0, moved.stderr
    page = requests.get(f"{client.server.base}/games/{game_id}", timeout=30)
    now = server_time(page)
    assert now - parsedate_to_datetime(page.headers["Date"]) > timedelta(days=2)
    words = quantities.time_left(deadline - now)
    assert words.startswith("22 hours") and f"{words.capitalize()}: the deadline is" in page.text
    assert 'class="problem"' in page.text.split(words.capitalize(), 1)[0][-40:]
    mover = state["to_move"]
    cli_env = {
        **os.environ,
        "CAFE_SERVER": client.server.base,
        "CAFE_TOKEN": client.tokens[mover],
        "CAFE_CONFIG_DIR": str(tmp_path / "config"),
        "COLUMNS": "100",
    }
    for command in (["show", str(game_id)], ["games"]):
        before = server_time(client.call("GET", "/healthz"))
        shown = subprocess.run(
            [str(CAFE), *command], env=cli_env, capture_output=True, text=True, timeout=60,
            check=False,
        )  # fmt: skip
        after = server_time(client.call("GET", "/healthz"))
        assert shown.returncode == 0, shown.stderr
        said = {quantities.time_left(deadline - moment) for moment in (before, after)}
        if command == ["games"]:  # under the heading "time left"
            said = {f"{left.removesuffix(' left')}  " for left in said}
        else:
            said = {f"{left} (" for left in said}
        assert any(f"! {left}" in shown.stdout for left in said), (said, shown.stdout)
    assert datetime.now(UTC) < deadline - timedelta(
        days=1
    )  # this machine's clock would not mark it
