"""The demo's slow operations as MCP tasks (issue 35), over real HTTP: ``mcp_client.py``
(the official SDK client with its tasks extension) polls the export job and the sales report
to their results, and ``@cached`` holds for a report run as a task.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from demo_project import mcp_client
from demo_project.shop import slow_views
from demo_project.shop.demo_data import DEMO_TOKENS
from mcp_bridge.signals import tool_call_delivered

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def reports(live_server, settings, monkeypatch):
    call_command("load_demo_data", verbosity=0)
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
    settings.MCP_BRIDGE = {"TASK_POLL_INTERVAL_MS": 100}
    monkeypatch.setattr(slow_views, "EXPORT_SECONDS", 0.5)
    monkeypatch.setattr(slow_views, "REPORT_SECONDS", 0.2)
    return f"{live_server.url}/mcp/reports/"


def run_client(url: str, *args: str) -> int:
    return mcp_client.main([url, "--token", DEMO_TOKENS["alice"], "call", *args])


def test_the_demo_client_polls_the_export_job_to_its_rows(reports, capsys):
    assert run_client(reports, "export_start") == 0
    out, err = capsys.readouterr()
    assert "working: The job is running." in err and "completed: The job is done." in err
    assert '"name": "Arc LED desk lamp"' in out and "isError: false" in out


def test_the_sales_report_runs_as_a_task_and_its_cache_holds(reports, capsys):
    delivered = []

    def count(sender, tool, **kwargs):
        delivered.append(tool.name)

    tool_call_delivered.connect(count)
    try:
        assert run_client(reports, "sales_report") == 0
        assert run_client(reports, "sales_report") == 0
    finally:
        tool_call_delivered.disconnect(count)
    out, err = capsys.readouterr()
    assert err.count("completed: Done.") == 2 and '"best_sellers"' in out
    # The second run came from @cached: no tool_call_delivered for it.
    assert delivered == ["sales_report"]
