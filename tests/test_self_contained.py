"""The repository stands on its own: no file in it links to or reads the folder beside it
that the project was first written from (`../shared/`, `/work/shared/`), nor any Markdown
link out of the checkout; the tests' data is in it (`tests/data/`).
The rules players read are the project's own (`cafe/rulebook.md`)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"\.\./shared\b|/work/shared\b")
#: A Markdown link that climbs (`](../…)`): fine while it stays in the checkout.
CLIMBING = re.compile(r"\]\((\.\./[^)\s#]*)")


def repository_files() -> list[Path]:
    """The files git knows or would add (ignored ones left out)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    return [ROOT / name for name in listed if name and (ROOT / name).is_file()]


def test_no_file_links_outside_the_repository() -> None:
    offenders = []
    for path in repository_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not text
        for number, line in enumerate(text.splitlines(), 1):
            climbs_out = any(
                not (path.parent / target).resolve().is_relative_to(ROOT)
                for target in CLIMBING.findall(line)
            )
            if (OUTSIDE.search(line) or climbs_out) and path != Path(__file__):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_the_readme_points_players_to_the_projects_own_rules() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[`cafe/rulebook.md`](cafe/rulebook.md)" in readme
    assert (ROOT / "cafe" / "rulebook.md").is_file()
