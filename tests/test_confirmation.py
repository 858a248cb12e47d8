"""Issue 36: a person confirms a destructive call through Multi Round-Trip Requests.

The official MCP Python client (``mcp`` 2.x) drives a real elicitation callback over real HTTP
against the demo shop's ``backoffice`` group, with ``MCP_BRIDGE["CONFIRM"] = {"backoffice":
"destructive"}`` and the used states recorded in Redis (``MCP_BRIDGE_TEST_REDIS_URL``), which a
second server process (Gunicorn) shares: a confirmed delete runs once, and its
``requestState`` replayed there is refused. Tampered, expired, another caller's and another
call's states are refused with nothing run; a declined form changes nothing and no view runs; a
client without elicitation gets an ``isError`` result saying what the operator can set.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from demo_project.shop.demo_data import DEMO_TOKENS
from demo_project.shop.models import Product
from mcp_bridge.signals import post_tool_call, tool_call_failed
from tests.services import REDIS_URL, delete_redis_keys, redis_prefix, require_redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent
LAMP = "arc-led-desk-lamp"


@pytest.fixture(scope="module")
def prefix() -> str:
    """The cache key prefix of this run's used states (shared with the second process)."""
    return redis_prefix("confirm")


@pytest.fixture
def shop(live_server, settings, prefix):
    """The demo shop over real HTTP; backoffice's destructive tools ask; Redis records uses."""
    require_redis()
    from django.core.management import call_command

    call_command("load_demo_data", verbosity=0)
    settings.CACHES = {
        **settings.CACHES,
        "confirmations": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        },
    }
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "CONFIRM": {"backoffice": "destructive"},
        "CONFIRM_CACHE": "confirmations",
    }
    yield live_server.url
    # Not caches["confirmations"].clear(): that empties the whole Redis database.
    delete_redis_keys(prefix)


@pytest.fixture
def events():
    """The outcomes the tool-call signals carried: ``[(signal, tool, confirmation, stage)]``."""
    seen: list[tuple[str, str | None, str | None, str | None]] = []

    def post(sender, tool, confirmation, **kwargs):
        seen.append(("post", tool.name, confirmation, None))

    def failed(sender, tool, name, confirmation, stage, **kwargs):
        seen.append(("failed", name, confirmation, stage))

    post_tool_call.connect(post, weak=False)
    tool_call_failed.connect(failed, weak=False)
    yield seen
    post_tool_call.disconnect(post)
    tool_call_failed.disconnect(failed)


def answering(action: str = "accept", confirm: bool = True, seen: list | None = None):
    """An elicitation callback: the person reads the form and answers ``action``."""

    async def callback(context, params):
        if seen is not None:
            seen.append(params)
        content = {"confirm": confirm} if action == "accept" else None
        return types.ElicitResult(action=action, content=content)

    return callback


async def _session(url, user="alice", *, elicit=None, mode="2026-07-28", sent=None, language=None):
    headers = {"Authorization": f"Token {DEMO_TOKENS[user]}"}
    if language:
        headers["Accept-Language"] = language

    async def record(request):
        if sent is not None and request.content:
            sent.append(json.loads(request.content))

    http = httpx2.AsyncClient(headers=headers, timeout=30, event_hooks={"request": [record]})
    client = Client(
        streamable_http_client(f"{url}/mcp/backoffice/", http_client=http),
        mode=mode,
        elicitation_callback=elicit,
    )
    return http, client


def call(url, name, arguments, **options):
    """``client.call_tool`` of the official client (which drives the MRTR rounds itself)."""

    async def main():
        http, client = await _session(url, **options)
        async with http, client:
            return await client.call_tool(name, arguments)

    return anyio.run(main)


def first_round(url, name, arguments, user="alice"):
    """The ``InputRequiredResult`` of a first call, driven by hand (``allow_input_required``)."""

    async def main():
        http, client = await _session(url, user, elicit=answering())
        async with http, client:
            return await client.session.call_tool(name, arguments, allow_input_required=True)

    result = anyio.run(main)
    assert isinstance(result, types.InputRequiredResult), result
    return result


def retry(url, name, arguments, state, *, user="alice", confirm=True):
    """The retry of a call with the answer to its confirmation form and ``state``."""

    async def main():
        http, client = await _session(url, user, elicit=answering())
        async with http, client:
            try:
                return await client.session.call_tool(
                    name,
                    arguments,
                    input_responses={
                        "mcp_bridge_confirm": types.ElicitResult(
                            action="accept", content={"confirm": confirm}
                        )
                    },
                    request_state=state,
                    allow_input_required=True,
                )
            except MCPError as exc:  # inside the client's task group, which would wrap it
                return exc

    return anyio.run(main)


def refusal(url, name, arguments, state, **options) -> dict:
    refused = retry(url, name, arguments, state, **options)
    assert isinstance(refused, MCPError), refused
    assert refused.error.code == -32602
    return refused.error.data


def error_of(result) -> dict:
    assert result.is_error is True, result
    return json.loads(result.content[0].text)


# --- A confirmed delete, once, on any process ---------------------------------------------------


@pytest.fixture(scope="module")
def second_server(prefix, tmp_path_factory):
    """A second server process (Gunicorn) of the same project, sharing the Redis records."""
    directory = tmp_path_factory.mktemp("confirmation-gunicorn")
    log = directory / "gunicorn.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_confirmation",
        "MCP_CONFIRM_PREFIX": prefix,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", "127.0.0.1:0"]
        + ["--error-logfile", str(log), "django.core.wsgi:get_wsgi_application()"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        port = None
        while port is None and time.monotonic() < deadline:
            assert process.poll() is None, log.read_text() if log.exists() else "gunicorn exited"
            text = log.read_text() if log.exists() else ""
            found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", text)
            port = found.group(1) if found and "Booting worker" in text else None
            time.sleep(0.1)
        assert port, f"gunicorn did not start: {log.read_text() if log.exists() else 'no log'}"
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_a_confirmed_delete_runs_once_and_its_state_is_refused_on_another_process(
    shop, second_server, events
):
    seen: list = []
    sent: list = []
    result = call(shop, "products_destroy", {"slug": LAMP}, elicit=answering(seen=seen), sent=sent)
    assert result.is_error is False, result
    assert not Product.objects.filter(slug=LAMP).exists()
    # The person read what will happen, in the application's words: the tool's title, the
    # object's name read through the pipeline as the caller, and its id.
    (form,) = seen
    lamp_id = re.search(r"\(id (\d+)\)", form.message)
    assert form.message.startswith("Delete a product 'Arc LED desk lamp' (id ")
    assert lamp_id and "cannot be undone" in form.message
    assert form.requested_schema["properties"]["confirm"]["type"] == "boolean"
    # The view ran once: one post_tool_call, after one question.
    assert [e for e in events if e[1] == "products_destroy"] == [
        ("failed", "products_destroy", "asked", "input_required"),
        ("post", "products_destroy", "confirmed", None),
    ]
    # The retry the client sent, replayed as is on the second process: refused, nothing runs.
    (retried,) = [m for m in sent if "requestState" in m.get("params", {})]
    params = retried["params"]
    replayed = httpx2.post(
        f"{second_server}/mcp/backoffice/",
        json={**retried, "id": 99},
        headers={
            "Authorization": f"Token {DEMO_TOKENS['alice']}",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "products_destroy",
        },
        timeout=60,
    ).json()
    assert replayed["error"]["code"] == -32602, replayed
    assert replayed["error"]["data"] == {"reason": "replayed"}
    assert "at most once" in replayed["error"]["message"]
    # And on this process too.
    assert refusal(shop, "products_destroy", {"slug": LAMP}, params["requestState"]) == {
        "reason": "replayed"
    }


def test_a_confirmation_through_call_destructive_tool(shop, settings, events):
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "DISCOVERY": {"backoffice": "search"}}
    seen: list = []
    result = call(
        shop,
        "call_destructive_tool",
        {"name": "products_destroy", "arguments": {"slug": LAMP}},
        elicit=answering(seen=seen),
    )
    assert result.is_error is False, result
    assert seen and seen[0].message.startswith("Delete a product 'Arc LED desk lamp'")
    assert not Product.objects.filter(slug=LAMP).exists()
    assert ("post", "products_destroy", "confirmed", None) in events


def test_the_question_is_in_the_callers_language(shop):
    seen: list = []
    call(shop, "products_destroy", {"slug": LAMP}, elicit=answering(seen=seen), language="de")
    assert seen[0].message.endswith("Dies kann nicht rückgängig gemacht werden.")
    assert seen[0].requested_schema["properties"]["confirm"]["title"] == "Bestätigen"


# --- Nothing runs ---------------------------------------------------------------------------------


def test_a_declined_form_changes_nothing_and_runs_no_view(shop, events):
    for action, outcome in (
        ("decline", "declined"),
        ("cancel", "cancelled"),
        ("accept", "declined"),
    ):
        result = call(
            shop, "products_destroy", {"slug": LAMP}, elicit=answering(action, confirm=False)
        )
        error = error_of(result)
        assert error["data"] == {"status": 409, "confirmation": outcome, "changed": False}
        assert "nothing was changed" in error["message"]
    assert Product.objects.filter(slug=LAMP).exists()
    assert not [e for e in events if e[0] == "post"]
    assert [e[2] for e in events if e[3] == "confirmation"] == ["declined", "cancelled", "declined"]


def test_tampered_expired_foreign_and_other_call_states_are_refused(shop, settings, events):
    asked = first_round(shop, "products_destroy", {"slug": LAMP})
    state = asked.request_state
    assert set(asked.input_requests) == {"mcp_bridge_confirm"}
    tampered = state[:-3] + ("AAA" if not state.endswith("AAA") else "BBB")
    assert refusal(shop, "products_destroy", {"slug": LAMP}, tampered) == {"reason": "tampered"}
    # Another user (bob) presents alice's state.
    assert refusal(shop, "products_destroy", {"slug": LAMP}, state, user="bob") == {
        "reason": "other_caller"
    }
    # The same state for other arguments, or another tool.
    other = {"slug": "ceramic-mug"}
    assert refusal(shop, "products_destroy", other, state) == {"reason": "other_call"}
    assert refusal(shop, "products_partial_update", {"slug": LAMP, "name": "x"}, state) == {
        "reason": "other_call"
    }
    # Expired: the signature's timestamp is older than CONFIRM_TTL.
    settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "CONFIRM_TTL": 1}
    time.sleep(2.1)
    assert refusal(shop, "products_destroy", {"slug": LAMP}, state) == {"reason": "expired"}
    assert Product.objects.filter(slug=LAMP).exists()
    assert not [e for e in events if e[0] == "post"]
    assert [e[2] for e in events if e[3] == "confirmation"] == [
        "tampered",
        "other_caller",
        "other_call",
        "other_call",
        "expired",
    ]


# --- Clients that cannot ask ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_a_client_without_elicitation_is_told_what_the_operator_can_set(shop, settings, mode):
    result = call(shop, "products_destroy", {"slug": LAMP}, mode=mode)
    error = error_of(result)
    assert error["code"] == 428
    assert error["data"]["setting"] == "CONFIRM_WITHOUT_ELICITATION"
    assert (
        "CONFIRM_WITHOUT_ELICITATION" in error["message"] and "Nothing was done" in error["message"]
    )
    assert Product.objects.filter(slug=LAMP).exists()
    # The operator lets such clients through for this group: the call runs unconfirmed.
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "CONFIRM_WITHOUT_ELICITATION": {"backoffice": True},
    }
    assert call(shop, "products_destroy", {"slug": LAMP}, mode=mode).is_error is False
    assert not Product.objects.filter(slug=LAMP).exists()


def test_reads_never_ask(shop):
    result = call(shop, "products_retrieve", {"slug": LAMP})  # no elicitation callback at all
    assert result.is_error is False


# --- The demo's client answers the form on the terminal -------------------------------------------


@pytest.mark.parametrize("reply,deleted", [("y\n", True), ("n\n", False)])
def test_the_demo_client_asks_on_the_terminal(shop, reply, deleted):
    proc = subprocess.run(
        [sys.executable, "demo_project/mcp_client.py", f"{shop}/mcp/backoffice/"]
        + ["--token", DEMO_TOKENS["alice"], "call", "products_destroy", json.dumps({"slug": LAMP})],
        input=reply,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert "Delete a product 'Arc LED desk lamp' (id " in proc.stderr, proc.stderr
    assert "Confirm [y/N]: " in proc.stdout + proc.stderr
    assert ("isError: false" in proc.stdout) is deleted, proc.stdout
    assert Product.objects.filter(slug=LAMP).exists() is not deleted
