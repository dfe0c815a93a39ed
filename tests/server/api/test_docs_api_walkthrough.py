"""Every route the curl walkthrough of docs/formats.md calls exists in the API description."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[3] / "docs" / "formats.md"


def _walkthrough_calls() -> list[tuple[str, str]]:
    """(method, path) of each curl call on the page, numbers standing for ids."""
    text = PAGE.read_text(encoding="utf-8")
    calls = []
    for command in re.findall(r"^curl .*$", text, re.MULTILINE):
        method = re.search(r"-X (\w+)", command)
        path = re.search(r"\$B(/[^\s\"'?]*)", command)
        assert path, f"a curl call without $B: {command}"
        calls.append(((method.group(1) if method else "GET").lower(), path.group(1)))
    return calls


def _matches(template: str, path: str) -> bool:
    pattern = re.sub(r"\{[^}]+\}", r"\\d+", template)
    return re.fullmatch(pattern, path) is not None


def test_the_walkthrough_calls_only_documented_routes(client) -> None:
    paths = client.get("/api/openapi.json").json["paths"]
    calls = _walkthrough_calls()
    assert len(calls) >= 10
    for method, path in calls:
        documented = [t for t in paths if _matches(t, path) and method in paths[t]]
        assert documented, f"docs/formats.md calls {method.upper()} {path}, which the API lacks"
