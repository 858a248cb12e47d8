"""The conformance suite's ``tasks-*`` scenarios (@modelcontextprotocol/conformance
0.2.0-alpha.12, the Tasks extension SEP-2663) against the test app's ``tasks`` group, whose
fixture tools they call: ``greet``, ``slow_compute``, ``failing_job`` and
``protocol_error_job`` (tests/testapp/task_views.py).

Each scenario runs on its own, and every one of them passes: none is listed in
tests/conformance/expected-failures-2026-07-28.yml, and a check that fails or warns fails
this test.
"""

from __future__ import annotations

import json

import pytest

from tests.test_real_peers import BASELINES, PEERS, node_bin, run_node  # noqa: F401

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SCENARIOS = (
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
)


@pytest.fixture
def tasks_server(live_server, settings):
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
    return live_server.url


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_tasks_scenario(node_bin, tasks_server, tmp_path, scenario):  # noqa: F811
    out = tmp_path / "out"
    proc = run_node(
        node_bin,
        [
            str(PEERS / "conformance-alpha" / "dist" / "index.js"),
            "server",
            "--url",
            f"{tasks_server}/mcp/tasks/",
            "--scenario",
            scenario,
            "--expected-failures",
            str(BASELINES / "expected-failures-2026-07-28.yml"),
            "-o",
            str(out),
        ],
        tmp_path,
    )
    checks = [c for f in out.glob("*/checks.json") for c in json.loads(f.read_text())]
    summary = [(c["id"], c["status"], c.get("errorMessage")) for c in checks]
    assert proc.returncode == 0, (summary, proc.stdout[-4000:], proc.stderr[-2000:])
    assert checks, proc.stdout[-2000:]
    # Every message the server sent, tasks included, is valid for the 2026-07-28 wire schema.
    wire = [c for c in checks if c["id"] == "wire-schema-valid"]
    assert all(c["status"] == "SUCCESS" for c in wire), wire
    # No scenario is in the baseline, and no check of theirs fails or warns either.
    failing = {c["id"] for c in checks if c["status"] in ("FAILURE", "WARNING")}
    assert failing == set(), summary
