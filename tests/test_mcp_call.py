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


# --- A tool that asks a person to confirm ---------------------------------------------------------

LAMP = "arc-led-desk-lamp"


@pytest.fixture
def shop(settings):
    from demo_project.shop.demo_data import load_demo_data

    load_demo_data()
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {"backoffice": "destructive"}}


def _lamp_exists() -> bool:
    from demo_project.shop.models import Product

    return Product.objects.filter(slug=LAMP).exists()


@pytest.mark.django_db
def test_yes_confirms_a_call_that_asks(shop):
    status, _, err = run(
        "backoffice", "products_destroy", json.dumps({"slug": LAMP}), "--user", "alice", "--yes"
    )
    assert status == 0, err
    assert "Delete a product 'Arc LED desk lamp' (id " in err and "--yes: confirmed." in err
    assert not _lamp_exists()


@pytest.mark.django_db
def test_no_declines_it(shop):
    status, _, err = run(
        "backoffice", "products_destroy", json.dumps({"slug": LAMP}), "--user", "alice", "--no"
    )
    assert status == 1 and "--no: declined." in err
    assert json.loads(err[err.index("{") :])["data"]["confirmation"] == "declined"
    assert _lamp_exists()


@pytest.mark.django_db
def test_without_an_answer_the_428_says_what_to_do(shop):
    status, _, err = run(
        "backoffice", "products_destroy", json.dumps({"slug": LAMP}), "--user", "alice"
    )
    error = json.loads(err)
    assert status == 1 and error["code"] == 428
    message = error["message"]
    assert message.startswith("Nothing was done: tool 'products_destroy' asks a person")
    assert "so it cannot ask" not in message
    assert "2026-07-28" in message and "--yes" in message
    assert "CONFIRM_WITHOUT_ELICITATION" in message
    assert _lamp_exists()


@pytest.mark.django_db
def test_a_caller_the_view_refuses_is_never_asked(shop):
    # bob is a customer: the view refuses his delete, so the question is not put to him.
    status, _, err = run(
        "backoffice", "products_destroy", json.dumps({"slug": LAMP}), "--user", "bob", "--yes"
    )
    assert status == 1 and "Delete a product" not in err
    assert json.loads(err)["code"] == 403
    assert _lamp_exists()
