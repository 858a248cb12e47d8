"""The README tells a newcomer the truth (issue 19, class 7): the install commands of step 1
name this project's distribution and the wheel ``pip wheel`` builds, and the example output is
what the demo client prints by default (the 2026-07-28 shape, not the handshake era's
``{"result": ...}``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_step_1_installs_from_pypi_a_clone_or_a_wheel_of_this_distribution():
    step = README.split("**1. Install and include.**")[1].split("**2.")[0]
    wheel = f"{PROJECT['name'].replace('-', '_')}-{PROJECT['version']}-py3-none-any.whl"
    assert f"pip install {PROJECT['name']}\n" in step
    assert "pip wheel --no-deps -w dist ./django-mcp-bridge" in step
    assert f"pip install dist/{wheel}" in step


def test_the_versions_the_readme_names_are_those_tested_and_declared():
    """The README's Python and Django versions are the classifiers of pyproject.toml and the
    versions the test workflow's matrix runs (its product and its include entries)."""
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "test.yml").read_text())
    matrix = workflow["jobs"]["test"]["strategy"]["matrix"]
    pythons = {*matrix["python"], *(entry["python"] for entry in matrix.get("include", []))}
    djangos = {*matrix["django"], *(entry["django"] for entry in matrix.get("include", []))}
    classifiers = PROJECT["classifiers"]
    declared_pythons = {
        c.rsplit(" :: ", 1)[1]
        for c in classifiers
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    declared_djangos = {
        c.rsplit(" :: ", 1)[1]
        for c in classifiers
        if re.fullmatch(r"Framework :: Django :: \d+\.\d+", c)
    }
    assert pythons == declared_pythons
    assert djangos == declared_djangos
    newest = max(pythons, key=lambda v: tuple(map(int, v.split("."))))
    assert f"Python {PROJECT['requires-python'].removeprefix('>=')}–{newest}" in README
    names = sorted(djangos, key=lambda v: tuple(map(int, v.split("."))))
    assert f"Django {', '.join(names[:-1])} and {names[-1]}" in README


@pytest.mark.slow
def test_pip_wheel_builds_the_wheel_the_readme_names(tmp_path):
    # The README's command, build isolation and all (it fetches the build backend).
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    named = re.search(r"pip install dist/(\S+\.whl)", README)
    assert named is not None
    assert [path.name for path in tmp_path.glob("*.whl")] == [named.group(1)]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_example_output_is_what_the_demo_client_prints_by_default(live_server, settings):
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)
    settings.ALLOWED_HOSTS = ["*"]
    printed = subprocess.run(
        [
            sys.executable,
            str(REPO / "demo_project" / "mcp_client.py"),
            f"{live_server.url}/mcp/catalog/",
            "call",
            "products_search",
            '{"q": "lamp"}',
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=REPO,
    )
    assert printed.returncode == 0, printed.stderr
    data_text, _, tail = printed.stdout.rpartition("\n}\n")
    data = json.loads(data_text + "\n}")
    assert tail.strip() == "isError: false"
    # The README's block: the page itself, then isError.
    block = README.split("which prints the call's `structuredContent`")[1].split("```text\n")[1]
    block = block.split("```")[0]
    assert block.startswith('{\n  "count": 5,\n  "next": null,')
    assert block.rstrip().endswith("isError: false")
    assert '"result"' not in block
    assert data["count"] == 5 and set(data) == {"count", "next", "previous", "results"}
    assert (
        data["results"][0]["name"] == "Arc LED desk lamp" and data["results"][0]["price"] == "49.90"
    )


def test_the_readme_names_everything_the_test_script_installs():
    """``scripts/test`` installs system packages with apt-get when run as root: the README's
    list of what the scripts need says so, and names the packages."""
    script = (REPO / "scripts" / "test").read_text()
    setup = README.split("bash scripts/test")[1].split("```bash")[0]
    installed = re.findall(r"apt-get install -y -qq ([\w\- ]+?) >", script)
    assert installed, "scripts/test no longer installs with apt-get: update this test"
    assert "apt-get" in setup and "root" in setup
    for packages in installed:
        for package in packages.split():
            assert f"`{package}`" in setup, package
    if "npm install" in script:
        assert "npm" in setup


def test_the_docs_speak_to_users_not_of_the_projects_own_work():
    """The docs explain the bridge; they never point at the project's issue tracker or its
    work items ("issue 36", "the issue's suggestion"), which a user cannot read."""
    pattern = re.compile(r"\bissues?\s*#?\d+|\bthe issue(?:'s)?\b", re.IGNORECASE)
    found = [
        f"{page.relative_to(REPO)}:{number}: {line.strip()}"
        for page in sorted((REPO / "docs").rglob("*.md"))
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
