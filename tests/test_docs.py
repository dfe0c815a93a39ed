"""The documentation stands on its own: every relative link of the README and of `docs/`
leads to a file of the repository (and to a heading of it, where it names one), and the
architecture page names every package of the service."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: `[text](target)`, the target without a title; images alike.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
#: The folders of code that cite pages and test files.
CODE = ("cafe", "server", "client", "tests", "benchmarks", ".ci")


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of the headings of a Markdown file: lowercase, punctuation dropped
    (an HTML comment too), spaces as hyphens; a repeated heading gets `-1`, `-2`, …"""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#+ (.*)$", FENCE.sub("", path.read_text("utf-8")), re.M):
        text = re.sub(r"<!--.*?-->", "", heading).strip().lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def links(path: Path) -> list[str]:
    """The link targets of a page, outside its code blocks."""
    return LINK.findall(FENCE.sub("", path.read_text("utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves_inside_the_repository(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        resolved = (page.parent / file).resolve() if file else page
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(f"{target}: no such file in the repository")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target}: {resolved.name} has no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_the_readme_links_to_every_page_of_the_docs() -> None:
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in links(ROOT / "README.md")}
    assert set(PAGES[1:]) <= linked


def test_the_architecture_page_names_every_package_of_the_server() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    packages = sorted(
        init.parent.relative_to(ROOT).as_posix()
        for init in (ROOT / "server").rglob("__init__.py")
        if not any(part.is_symlink() for part in init.parents if part.is_relative_to(ROOT))
    )
    assert packages, "no packages found under server/"
    missing = [name for name in packages if f"`{name}/`" not in text]
    assert not missing, f"docs/architecture.md does not name {missing}"


def test_the_anchors_follow_githubs_rules(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Install · Run · Test\n## The service's API\n## 13. A turn <!-- x -->\n"
                    "## Notes\n## Notes\n```\n# not a heading\n```\n")  # fmt: skip
    assert anchors(page) == {"install--run--test", "the-services-api", "13-a-turn", "notes",
                             "notes-1"}  # fmt: skip


def test_every_page_the_code_cites_exists() -> None:
    cited = {
        (path.relative_to(ROOT).as_posix(), name)
        for folder in CODE
        for path in (ROOT / folder).rglob("*.py")
        for name in re.findall(r"\bdocs/[\w-]+\.md\b", path.read_text("utf-8"))
    }
    assert cited, "the code cites no page of docs/"
    missing = sorted(f"{source}: {name}" for source, name in cited if not (ROOT / name).is_file())
    assert not missing, "\n".join(missing)


def test_every_test_file_the_docs_and_code_name_exists() -> None:
    """A test file named by its path (`tests/server/mail/test_email_lines.py`) in the README,
    `docs/` or the code is where it says, also after the tests move."""
    sources = [*PAGES, *(path for folder in CODE for path in (ROOT / folder).rglob("*.py"))]
    named = {
        (source.relative_to(ROOT).as_posix(), name)
        for source in sources
        for name in re.findall(r"\btests/[\w/]+\.py\b", source.read_text("utf-8"))
    }
    assert named, "nothing names a test file"
    missing = sorted(f"{source}: {name}" for source, name in named if not (ROOT / name).is_file())
    assert not missing, "\n".join(missing)
