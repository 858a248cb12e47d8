"""``manage.py mcp_call``: the endpoint's pipeline from the shell, with its exit statuses."""

from __future__ import annotations

import io
import json

import pytest
from django.core import signals
from django.core.management import call_command
from django.db import close_old_connections


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """mcp_call sends request_started/finished, whose receiver closes the database connection:
    in a test it holds the test's transaction (Django's test client disconnects it too)."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("mcp_call", *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        return int(exit_.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_a_call_as_a_user_prints_the_structured_content(make_user):
    make_user("alice", staff=True)
    status, out, _ = run("backoffice", "shop_stats", "--user", "alice")
    assert status == 0 and "products" in json.loads(out)


@pytest.mark.django_db
def test_an_is_error_result_exits_with_1_and_a_json_rpc_error_with_2():
    status, out, err = run("backoffice", "shop_stats")  # anonymous: the view's permission refuses
    assert status == 1 and out == "" and json.loads(err)["code"] in (401, 403)
    status, _, err = run("backoffice", "no_such_tool")
    assert status == 2 and json.loads(err)["code"] == -32602
    status, _, err = run("catalog", "products_search", '{"q": 1, "nope": true}')
    assert status == 1 and json.loads(err)["code"] == -32602  # invalid arguments: an isError result


@pytest.mark.django_db
def test_the_whole_result_and_bad_arguments():
    status, out, _ = run("catalog", "products_search", '{"q": "lamp"}', "--result")
    assert status == 0 and json.loads(out)["isError"] is False
    with pytest.raises(Exception, match="JSON object"):
        call_command("mcp_call", "catalog", "products_search", "[1]")
