"""The cost of a person's confirmation, counted: both requests of the round trip against the
same call unconfirmed (issue 36, docs/confirmation.md).

``bash bench/run confirmation`` (or ``python -m bench.confirmation``).

Counted as :mod:`bench.instructions` counts (callgrind, in process through Django's test
client, ``(count of MANY - count of FEW) / (MANY - FEW)`` per request, after a warm-up, the
heap frozen), on the tiny view's tool (``item_detail``) in the 2026-07-28 revision, with the
client declaring elicitation:

* ``plain``: the call, the tool asking nothing (``MCP_BRIDGE["CONFIRM"]`` unset);
* ``ask``: the first request of a confirmed call: the confirmation step finds no state, reads
  the object through the tool's own ``GET`` (here the tool itself), and answers the
  ``InputRequiredResult`` with a signed ``requestState``;
* ``confirm``: the retry: the state verified, recorded as used (``cache.add`` in the bench's
  ``LocMemCache``; a Redis round trip in production comes on top), then the view;
* ``bare`` and ``ruled``: what rules for other tools cost a call that uses neither. The same
  call by a client that declares neither elicitation nor tasks, in a group without rules
  (``bare``) and in one whose ``CONFIRM`` and ``"tasks"`` rule cover its list tool
  (``ruled``: ``item_list`` asks a person and is a run task; ``item_detail``, called, is
  covered by neither). Goal: ``ruled`` ≤ 1.002× ``bare``.

Every retry needs a state of its own (each is used once): both counted processes sign
:data:`MANY` states before the count starts, so that only the retries differ.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from typing import Any

from bench import instructions, lib

KINDS = ("plain", "ask", "confirm", "bare", "ruled")
#: ``ruled``: the group's list tool asks a person and is a run task; the called tool neither.
OTHER_TOOL = lib.IN_PROCESS_CASES["list"][0]
RULES = {
    "CONFIRM": {"bench": [OTHER_TOOL]},
    "GROUPS": {
        "bench": {"tasks": [{"path_regex": r"^/api/items/$", "methods": ["GET"], "task": "run"}]},
    },
}
#: The counts of requests of the two processes (``BENCH_CONFIRMATION_COUNTS="10,60"`` for a
#: quicker, noisier figure on a busy host).
FEW, MANY = (
    tuple(int(n) for n in os.environ["BENCH_CONFIRMATION_COUNTS"].split(","))
    if os.environ.get("BENCH_CONFIRMATION_COUNTS")
    else (instructions.FEW, instructions.MANY)
)
WARM_UP = instructions.WARM_UP
TOOL, ARGUMENTS, _ = lib.IN_PROCESS_CASES["tiny"]
MODERN = "2026-07-28"
CONFIRM_KEY = "mcp_bridge_confirm"


def _senders(kind: str) -> tuple[Any, Any]:
    """``(prepare, send)``: ``prepare()`` runs before the count (the states of the retries),
    ``send()`` one request of ``kind``, checking its answer."""
    from django.test import Client

    client = Client(HTTP_HOST=lib.HOST)
    headers = {
        "HTTP_AUTHORIZATION": f"Token {lib.TOKEN}",
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": MODERN,
        "HTTP_MCP_METHOD": "tools/call",
        "HTTP_MCP_NAME": TOOL,
    }
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }
    first = {"name": TOOL, "arguments": ARGUMENTS, "_meta": meta}
    # A client that declares neither elicitation nor the Tasks extension.
    undeclared = {
        **first,
        "_meta": {**meta, "io.modelcontextprotocol/clientCapabilities": {}},
    }

    def post(params: dict[str, Any]) -> dict[str, Any]:
        response = client.post(
            lib.IN_PROCESS_PATHS["mcp"],
            lib.mcp_message("tools/call", params),
            content_type="application/json",
            **headers,
        )
        assert response.status_code == 200, response.content[:300]
        return json.loads(response.content)["result"]

    if kind == "plain":
        return (lambda: None), (lambda: _check(post(first), "complete"))
    if kind in ("bare", "ruled"):
        return (lambda: None), (lambda: _check(post(undeclared), "complete"))
    if kind == "ask":
        return (lambda: None), (lambda: _check(post(first), "input_required"))
    states: list[str] = []
    answer = {CONFIRM_KEY: {"action": "accept", "content": {"confirm": True}}}

    def prepare() -> None:
        states.extend(post(first)["requestState"] for _ in range(MANY))

    def confirm() -> None:
        _check(post({**first, "inputResponses": answer, "requestState": states.pop()}), "complete")

    return prepare, confirm


def _check(result: dict[str, Any], result_type: str) -> None:
    assert result.get("resultType") == result_type and not result.get("isError"), result


def _child(kind: str, n: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django
    from django.conf import settings
    from django.test import override_settings

    django.setup()
    prepare, send = _senders(kind)
    # Warmed as the tool that asks nothing, in both eras of the process, then asking.
    warm = _senders("plain")[1]
    for _ in range(WARM_UP):
        warm()
    if kind in ("bare", "ruled"):  # as a deployment sets it; override_settings tells the bridge
        # Both kinds read their settings through an override: it costs every settings read.
        rules = RULES if kind == "ruled" else {}
        override_settings(MCP_BRIDGE={**settings.MCP_BRIDGE, **rules}).enable()
    elif kind not in ("plain", "bare"):
        override_settings(MCP_BRIDGE={**settings.MCP_BRIDGE, "CONFIRM": {"bench": [TOOL]}}).enable()
    prepare()
    if kind in ("bare", "ruled"):
        for _ in range(WARM_UP):  # the rules' own first uses (the new tool set) warmed too
            send()
    elif kind != "plain":
        for _ in range(WARM_UP // 5):  # the kind's own path warmed too, with states to spare
            _senders("ask")[1]()
    gc.collect()
    gc.freeze()
    for _ in range(n):
        send()


def _start(kind: str, n: int, out_file: str) -> subprocess.Popen[str]:
    return lib.callgrind("bench.confirmation", ["--child", kind, n], out_file)


def counted() -> dict[str, float]:
    """Instructions per request of every kind: the six counted processes run side by side
    (:func:`bench.lib.per_request`)."""
    return lib.per_request(_start, KINDS, FEW, MANY)


def run() -> str:
    lib.log(f"confirmation: {', '.join(KINDS)}, {FEW} and {MANY} requests each under callgrind")
    per_request = counted()
    plain = per_request["plain"]
    both = per_request["ask"] + per_request["confirm"]
    rows = [
        [kind, f"{value / 1e3:,.0f}", f"{value / plain:.2f}"] for kind, value in per_request.items()
    ]
    rows.append(["ask + confirm (the round trip)", f"{both / 1e3:,.0f}", f"{both / plain:.2f}"])
    ruled = per_request["ruled"] / per_request["bare"]
    rows.append(["ruled / bare (goal ≤ 1.002)", "", f"{ruled:.4f}"])
    return lib.table(
        "A confirmed call against the same call unconfirmed (instructions per request)",
        ["request", "k instr", "× the unconfirmed call"],
        rows,
        f"callgrind, in process through Django's test client, the tiny view's tool ({TOOL}) in "
        f"2026-07-28; per request = (count of {MANY} - count of {FEW}) / {MANY - FEW}; "
        "PYTHONHASHSEED=0. ask reads the object through the tool's GET (the tool itself here) "
        "and signs the state; confirm verifies it and records its use in a LocMemCache.",
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    else:
        print(run())
