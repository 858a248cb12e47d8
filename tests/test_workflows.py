"""The GitHub workflows keep their promises (they run on GitHub only; ``.ci/run`` checks their
syntax with actionlint): the test matrix covers the supported versions, and a release is
published by PyPI trusted publishing alone, with no stored credential.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"


def load(name: str) -> dict:
    # PyYAML reads the key `on` as the boolean True (YAML 1.1).
    return yaml.safe_load((WORKFLOWS / name).read_text())


def test_the_workflows_are_the_four_of_a_kept_package():
    assert sorted(p.name for p in WORKFLOWS.glob("*.yml")) == [
        "docs.yml",
        "lint.yml",
        "release.yml",
        "test.yml",
    ]


def test_the_test_matrix_covers_the_supported_versions_in_a_few_jobs():
    matrix = load("test.yml")["jobs"]["test"]["strategy"]["matrix"]
    jobs = [(p, d) for p in matrix["python"] for d in matrix["django"]]
    for entry in matrix["include"]:
        if (entry["python"], entry["django"]) not in jobs:
            jobs.append((entry["python"], entry["django"]))
    assert {d for _, d in jobs} == {"5.2", "6.0", "6.1"}
    assert {p for p, _ in jobs} >= {"3.11", "3.12", "3.13", "3.14"}
    # Django 6 needs Python 3.12 or newer.
    assert not [job for job in jobs if job[0] == "3.11" and job[1] != "5.2"]
    assert len(jobs) < 12  # not the whole product
    floors = [entry for entry in matrix["include"] if entry.get("floors")]
    assert floors == [{"python": "3.11", "django": "5.2", "floors": True, "database": "postgres"}]


def test_the_test_jobs_run_the_readme_command_with_every_service():
    job = load("test.yml")["jobs"]["test"]
    assert set(job["services"]) == {"postgres", "redis"}
    assert job["env"]["MCP_BRIDGE_REQUIRE_PEERS"] == "1"
    runs = [step.get("run", "") for step in job["steps"]]
    assert "bash scripts/test -q" in runs
    assert any("nox -s oldest" in run for run in runs)
    assert any(step.get("uses", "").startswith("actions/setup-node@") for step in job["steps"])


def test_a_release_is_published_by_trusted_publishing_alone():
    workflow = load("release.yml")
    assert workflow[True]["push"]["tags"] == ["v[0-9]+.[0-9]+.[0-9]+*"]
    publish = workflow["jobs"]["publish"]
    assert publish["environment"]["name"] == "pypi"
    assert publish["permissions"] == {"id-token": "write"}
    (upload,) = [s for s in publish["steps"] if "gh-action-pypi-publish" in s.get("uses", "")]
    assert upload["uses"] == "pypa/gh-action-pypi-publish@release/v1"
    assert "with" not in upload  # no password, no token: the OIDC exchange only
    # Built once, in the build job, and attested there; publish only downloads the files.
    assert publish["needs"] == "build"
    assert not [s for s in publish["steps"] if "run" in s]
    build = workflow["jobs"]["build"]
    uses = [step.get("uses", "") for step in build["steps"]]
    assert any(u.startswith("actions/attest-build-provenance@") for u in uses)
    assert any("twine check --strict" in step.get("run", "") for step in build["steps"])


def test_no_workflow_reads_a_secret():
    for path in WORKFLOWS.glob("*.yml"):
        text = path.read_text()
        assert not re.search(r"secrets\.|password:|PYPI_TOKEN|TWINE_", text), path.name
        assert load(path.name)["permissions"] == {"contents": "read"}, path.name
