"""Issue 36, without a live server: a view that asks (``mcp_bridge.confirmation.InputRequired``)
over REST and over both MCP eras, the checks of ``inputResponses`` and ``requestState``, a batch
member that needs a confirmation, and the outcome the signals carry.

The end-to-end tests with the official client over real HTTP are tests/test_confirmation.py;
the conformance scenarios are tests/test_real_peers.py.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from demo_project.shop.demo_data import DEMO_TOKENS
from demo_project.shop.models import Product
from mcp_bridge.signals import tool_call_failed
from tests.mcp_client import MODERN, McpClient, message, tool_call

pytestmark = pytest.mark.django_db

ELICIT = "test_input_required_result_elicitation"
CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"


def modern(capabilities=None, **headers) -> McpClient:
    client = McpClient(Client(), "/mcp/conformance/", revision=MODERN, **headers)
    client.capabilities = capabilities if capabilities is not None else {"elicitation": {}}
    return client


def call(client: McpClient, name: str, arguments=None, **extra) -> dict:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        CAPABILITIES: client.capabilities,
    }
    response = client.request("tools/call", {**tool_call(name, arguments), **extra}, meta=meta)
    return response.json()


def test_over_rest_the_view_answers_428_with_what_it_needs():
    response = Client().get("/cases/mrtr/elicitation/")
    assert response.status_code == 428
    assert response.json() == {
        "detail": "This operation needs input from the caller before it can be carried out.",
        "resultType": "input_required",
        "inputRequests": {
            "user_name": {
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "What is your name?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}},
                        "required": ["name"],
                    },
                },
            }
        },
    }


def test_the_view_asks_and_reads_the_answers_on_the_retry():
    client = modern()
    asked = call(client, ELICIT)["result"]
    assert asked["resultType"] == "input_required"
    assert set(asked["inputRequests"]) == {"user_name"}
    answer = {"user_name": {"action": "accept", "content": {"name": "Ada"}}}
    done = call(client, ELICIT, inputResponses=answer, requestState=asked["requestState"])
    assert done["result"]["resultType"] == "complete"
    assert done["result"]["structuredContent"] == "Hello, Ada!"


@pytest.mark.parametrize(
    "capabilities,needs", [({}, ["elicitation"]), ({"elicitation": {"url": {}}}, ["elicitation"])]
)
def test_a_client_without_the_capability_gets_no_input_requests(capabilities, needs):
    result = call(modern(capabilities), ELICIT)["result"]
    assert result["isError"] is True and "inputRequests" not in result
    error = json.loads(result["content"][0]["text"])
    assert error["code"] == 428 and error["data"]["needs"] == needs


def test_the_handshake_era_gets_the_views_428_as_an_error_result():
    client = McpClient(Client(), "/mcp/conformance/")
    result = client.rpc("tools/call", tool_call(ELICIT))["result"]
    assert result["isError"] is True and "inputRequests" not in result
    assert json.loads(result["content"][0]["text"])["code"] == 428


@pytest.mark.parametrize(
    "extra",
    [
        {"inputResponses": None},
        {"inputResponses": [1]},
        {"inputResponses": {"user_name": 12345}},
        {"requestState": 17},
    ],
)
def test_malformed_input_responses_and_states_are_invalid_params(extra):
    answer = call(modern(), ELICIT, **extra)
    assert answer["error"]["code"] == -32602, answer


def test_a_view_state_is_bound_to_its_arguments_and_tool():
    client = modern()
    asked = call(client, "test_input_required_result_request_state")["result"]
    other = call(
        client,
        "test_input_required_result_tampered_state",
        inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}},
        requestState=asked["requestState"],
    )
    assert other["error"]["data"] == {"reason": "other_call"}


def test_a_view_that_asks_is_reported_as_input_required():
    seen = []

    def failed(sender, stage, confirmation, error, **kwargs):
        seen.append((stage, confirmation, error["code"]))

    tool_call_failed.connect(failed, weak=False)
    try:
        call(modern(), ELICIT)
    finally:
        tool_call_failed.disconnect(failed)
    assert seen == [("input_required", None, None)]


def test_a_batch_member_that_needs_a_confirmation_does_not_block_the_others(settings):
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {"backoffice": "destructive"}}
    client = McpClient(
        Client(),
        "/mcp/backoffice/",
        revision="2025-03-26",
        Authorization=f"Token {DEMO_TOKENS['alice']}",
    )
    slug = "arc-led-desk-lamp"
    replies = client.post(
        [
            message("tools/call", tool_call("products_destroy", {"slug": slug}), id=1),
            message("tools/call", tool_call("products_retrieve", {"slug": slug}), id=2),
            message("tools/call", tool_call("shop_stats"), id=3),
        ]
    ).json()
    first = json.loads(replies[0]["result"]["content"][0]["text"])
    assert first["code"] == 428 and first["data"]["confirmation"] == "unavailable"
    assert replies[1]["result"]["isError"] is False and replies[2]["result"]["isError"] is False
    assert Product.objects.filter(slug=slug).exists()


def test_a_tools_own_question_and_decorator_ask_without_a_group_rule():
    from tests.testapp.mrtr_views import ARCHIVED

    ARCHIVED.clear()
    client = modern()
    asked = call(client, "test_confirm_archive")["result"]
    (form,) = asked["inputRequests"].values()
    assert form["params"]["message"] == "Really Archive the board? Everyone loses access."
    assert ARCHIVED == []
    key = next(iter(asked["inputRequests"]))
    done = call(
        client,
        "test_confirm_archive",
        inputResponses={key: {"action": "accept", "content": {"confirm": True}}},
        requestState=asked["requestState"],
    )["result"]
    assert done["isError"] is False and ARCHIVED == ["board"]


# --- The view's permissions come before the question ---------------------------------------------


@pytest.fixture
def shop(settings):
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM": {"backoffice": "destructive"}}


def backoffice(user: str, revision: str = MODERN) -> McpClient:
    client = McpClient(
        Client(), "/mcp/backoffice/", revision=revision, Authorization=f"Token {DEMO_TOKENS[user]}"
    )
    client.capabilities = {"elicitation": {}}
    return client


LAMP = "arc-led-desk-lamp"


def error_of(result: dict) -> dict:
    assert result["isError"] is True and "inputRequests" not in result, result
    return json.loads(result["content"][0]["text"])


def test_a_caller_who_may_not_delete_gets_the_views_403_not_the_question(shop):
    # bob, a customer: REST answers his DELETE with 403; so does the tool, before any question.
    rest = Client().delete(
        f"/api/products/{LAMP}/", HTTP_AUTHORIZATION=f"Token {DEMO_TOKENS['bob']}"
    )
    assert rest.status_code == 403
    result = call(backoffice("bob"), "products_destroy", {"slug": LAMP})["result"]
    error = error_of(result)
    assert error["code"] == 403 and error["message"] == rest.json()["detail"]
    assert error["data"]["detail"] == rest.json()
    assert Product.objects.filter(slug=LAMP).exists()


def test_an_older_client_that_may_not_delete_gets_403_not_the_confirmations_428(shop):
    client = backoffice("bob", revision="2025-11-25")
    result = client.rpc("tools/call", tool_call("products_destroy", {"slug": LAMP}))["result"]
    assert error_of(result)["code"] == 403
    # Without credentials: REST's 401 (or 403), never the confirmation's 428.
    anonymous = McpClient(Client(), "/mcp/backoffice/", revision="2025-11-25")
    result = anonymous.rpc("tools/call", tool_call("products_destroy", {"slug": LAMP}))["result"]
    assert error_of(result)["code"] in (401, 403)


def test_an_object_that_does_not_exist_is_a_404_not_a_question(shop):
    result = call(backoffice("alice"), "products_destroy", {"slug": "no-such-lamp"})["result"]
    assert error_of(result)["code"] == 404


def test_a_caller_the_view_lets_through_is_still_asked(shop):
    asked = call(backoffice("alice"), "products_destroy", {"slug": LAMP})["result"]
    assert asked["resultType"] == "input_required"
    (form,) = asked["inputRequests"].values()
    assert form["params"]["message"].startswith("Delete a product 'Arc LED desk lamp' (id ")
    assert Product.objects.filter(slug=LAMP).exists()
