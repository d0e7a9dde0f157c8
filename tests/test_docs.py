"""The Markdown documentation: every relative link leads to a file that exists and, where it
names a heading, to a heading that exists (GitHub's anchors), so renaming a section or moving
a file cannot leave a dead link behind."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def markdown_files() -> list[Path]:
    skipped = {".venv", "build", "dist", "node_modules"}
    return sorted(
        path
        for path in ROOT.rglob("*.md")
        if not any(part in skipped or part.startswith(".") for part in path.relative_to(ROOT).parts)
    )


def github_anchors(text: str) -> set[str]:
    """The fragment GitHub gives each heading: lower case, punctuation dropped, spaces to
    hyphens, and ``-1``, ``-2`` ... after repeats."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for line in strip_code(text).splitlines():
        match = HEADING.match(line)
        if match:
            slug = re.sub(r"[^\w\- ]", "", match.group(1).lower()).replace(" ", "-")
            repeats = seen.get(slug, 0)
            seen[slug] = repeats + 1
            anchors.add(slug if repeats == 0 else f"{slug}-{repeats}")
    return anchors


def strip_code(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.S)


def dead_links(path: Path) -> list[str]:
    dead = []
    for match in LINK.finditer(strip_code(path.read_text())):
        link = match.group(1)
        if re.match(r"^[a-z]+:", link):  # http:, https:, mailto:
            continue
        target, _, fragment = link.partition("#")
        resolved = path.parent / target if target else path
        if not resolved.exists():
            dead.append(f"{link}: no such file")
        elif (
            fragment
            and resolved.suffix == ".md"
            and fragment not in github_anchors(resolved.read_text())
        ):
            dead.append(f"{link}: no such heading")
    return dead


def test_anchors_follow_githubs_rule():
    text = "# Play-time search: more simulations, and keeping the tree\n## Setup\n## Setup\n"
    assert github_anchors(text) == {
        "play-time-search-more-simulations-and-keeping-the-tree",
        "setup",
        "setup-1",
    }


def test_a_dead_link_is_found(tmp_path):
    (tmp_path / "a.md").write_text("# Title\n[ok](#title) [gone](b.md) [moved](#elsewhere)\n")
    assert dead_links(tmp_path / "a.md") == ["b.md: no such file", "#elsewhere: no such heading"]


def test_every_link_in_the_docs_leads_to_a_file_and_heading_that_exist():
    files = markdown_files()
    assert ROOT / "README.md" in files and len(files) >= 4
    dead = {str(path.relative_to(ROOT)): dead_links(path) for path in files}
    assert not {name: links for name, links in dead.items() if links}
