"""CHANGELOG.md keeps the form of Keep a Changelog 1.1.0 (https://keepachangelog.com/en/1.1.0/),
written for the people who use the package.

- An ``## [Unreleased]`` section first (empty between releases), then one
  ``## [X.Y.Z] - YYYY-MM-DD`` section per release, newest first.
- A section holds only the headings Added, Changed, Deprecated, Removed, Fixed and Security,
  each at most once, in that order, none empty, and no deeper heading.
- No internal issue or pull-request numbers: a user cannot open them.
- The newest release is the version of pyproject.toml and of ``mcp_bridge.__version__``, and
  the link references at the bottom point at its tag.
"""

from __future__ import annotations

import datetime
import re
import tomllib
from pathlib import Path

import pytest
from packaging.version import Version

import mcp_bridge

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = ROOT / "CHANGELOG.md"
REPOSITORY = "https://github.com/django-mcp-bridge/django-mcp-bridge"
#: Keep a Changelog's kinds of change, in the order its examples use.
KINDS = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]
RELEASE = re.compile(r"\[(?P<version>\d+\.\d+\.\d+(?:[-.]?\w+)?)\] - (?P<date>\d{4}-\d{2}-\d{2})")
#: "issue 35", "issues 33 and 34", "#35", "PR 12", "pull request 12", "GH-12".
INTERNAL_NUMBER = re.compile(
    r"\b(?:issues?|PRs?|pull requests?)\s+#?\d+|(?:^|[\s(\[,;])#\d+\b|\bGH-\d+\b",
    re.IGNORECASE | re.MULTILINE,
)


def sections(text: str) -> list[tuple[str, str]]:
    """The ``## `` sections of a changelog: (heading, body) in order."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def problems(text: str) -> list[str]:
    """Every way ``text`` departs from the form, in words that say what to fix."""
    found: list[str] = []
    if not text.startswith("# Changelog\n"):
        found.append('the file does not start with "# Changelog"')
    parts = sections(text)
    if not parts or parts[0][0] != "[Unreleased]":
        found.append('the first section is not "## [Unreleased]" (keep it, empty if need be)')
    versions: list[Version] = []
    dates: list[datetime.date] = []
    for heading, body in parts:
        released = RELEASE.fullmatch(heading)
        if heading != "[Unreleased]" and not released:
            found.append(f'"## {heading}" is neither "[Unreleased]" nor "[X.Y.Z] - YYYY-MM-DD"')
        if released:
            versions.append(Version(released["version"]))
            try:
                dates.append(datetime.date.fromisoformat(released["date"]))
            except ValueError:
                found.append(f'"## {heading}": {released["date"]} is not a date')
        kinds = re.findall(r"^### (.+)$", body, flags=re.MULTILINE)
        for kind in kinds:
            if kind not in KINDS:
                found.append(
                    f'"## {heading}" has "### {kind}": a release section holds only '
                    f"{', '.join(KINDS)}; put its lines under the kind of change they are"
                )
        for kind in {k for k in kinds if kinds.count(k) > 1}:
            found.append(f'"## {heading}" has "### {kind}" {kinds.count(kind)} times: merge them')
        known = [k for k in kinds if k in KINDS]
        if known != sorted(known, key=KINDS.index):
            found.append(f'"## {heading}": the kinds are not in the order {", ".join(KINDS)}')
        if re.search(r"^#{4,} ", body, flags=re.MULTILINE):
            found.append(f'"## {heading}" has a heading below "###": use a list instead')
        for kind, content in zip(kinds, re.split(r"^### .+$", body, flags=re.MULTILINE)[1:]):
            if not re.search(r"^- ", content, flags=re.MULTILINE):
                found.append(f'"## {heading}" has an empty "### {kind}": remove the heading')
    if versions != sorted(versions, reverse=True) or len(set(versions)) != len(versions):
        found.append("the releases are not listed newest first, each once")
    if dates != sorted(dates, reverse=True):
        found.append("the release dates do not go back in time from the top")
    for match in INTERNAL_NUMBER.finditer(text):
        found.append(
            f'"{match.group().strip()}" names an internal issue or pull request: say what '
            "changed for the user instead"
        )
    return found


def test_the_changelog_keeps_its_form():
    assert problems(CHANGELOG.read_text()) == []


def test_the_newest_release_is_the_package_version():
    text = CHANGELOG.read_text()
    released = [RELEASE.fullmatch(h) for h, _ in sections(text)]
    newest = next(match for match in released if match)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert newest["version"] == project["version"] == mcp_bridge.__version__


def test_the_link_references_point_at_the_tags():
    text = CHANGELOG.read_text()
    newest = next(m for m in (RELEASE.fullmatch(h) for h, _ in sections(text)) if m)["version"]
    links = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", text, flags=re.MULTILINE))
    assert links["Unreleased"] == f"{REPOSITORY}/compare/v{newest}...HEAD"
    assert links[newest].startswith(f"{REPOSITORY}/")
    assert links[newest].endswith(f"v{newest}")
    for name in links:
        assert f"## [{name}]" in text, f"the link reference [{name}] names no section"


GOOD = """# Changelog

## [Unreleased]

## [1.1.0] - 2026-12-04

### Added

- A feature.

### Fixed

- A bug.

## [1.0.0] - 2026-11-01

### Added

- The first version.
"""


SWAPPED = "### Fixed\n\n- A bug.\n\n### Added\n\n- A feature."


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (GOOD.replace("### Fixed", "### MCP tasks"), 'has "### MCP tasks"'),
        (GOOD.replace("### Fixed", "### Added"), '"### Added" 2 times'),
        (GOOD.replace("- A bug.", "- A bug (issue 35)."), '"issue 35" names an internal'),
        (GOOD.replace("- A bug.", "- A bug, see #35."), '"#35" names an internal'),
        (GOOD.replace("## [Unreleased]\n", ""), "the first section is not"),
        (GOOD.replace("[1.0.0] - 2026-11-01", "[1.2.0] - 2026-11-01"), "newest first"),
        (GOOD.replace("2026-11-01", "2026-12-24"), "do not go back in time"),
        (GOOD.replace("- A bug.", ""), 'an empty "### Fixed"'),
        (
            GOOD.replace("### Added\n\n- A feature.\n\n### Fixed\n\n- A bug.", SWAPPED),
            "not in the order",
        ),
        (GOOD.replace("[1.1.0] - 2026-12-04", "1.1.0 (4 December)"), "neither"),
        (GOOD.replace("- A bug.", "#### Details\n\n- A bug."), 'below "###"'),
    ],
)
def test_each_departure_is_named(text, needle):
    assert problems(GOOD) == []
    assert any(needle in problem for problem in problems(text)), problems(text)


def test_an_empty_unreleased_section_and_one_with_lines_are_both_kept():
    with_lines = GOOD.replace("## [Unreleased]\n", "## [Unreleased]\n\n### Fixed\n\n- More.\n")
    assert problems(with_lines) == []
    # An anchor of a docs page is no issue number.
    assert problems(GOOD.replace("- A bug.", "- A bug ([docs](docs/x.md#5-counts)).")) == []
