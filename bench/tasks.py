"""What an MCP task costs (docs/tasks.md), in instructions: ``python -m bench.tasks``.

Counted as :mod:`bench.instructions` counts a request (callgrind, ``(count of MANY - count of
FEW) / (MANY - FEW)``, after a warm-up, ``gc.freeze()``, ``PYTHONHASHSEED=0``), on the bench
site's tiny view (``item_detail``) made a run task by a ``"tasks"`` rule of ``GROUPS``, through
Django's test client, 2026-07-28 requests:

* ``sync``: the ``tools/call`` of a client that does not declare the extension: the
  synchronous call, as every client made it before tasks;
* ``create``: the same call declaring the extension: the task is checked, stored and handed to
  the engine (an engine that only records the id: the run is counted apart);
* ``create_run``: ``create``, then the run a worker makes of it (:func:`mcp_bridge.tasks.runs.run`,
  in process): ``create_run - create`` is the run;
* ``get``: one ``tasks/get`` of a completed task (the poll that fetches the result);
* ``plain_list`` and ``declared_list``: a tool with no task policy (``item_list``), called
  without and with the extension declared: what declaring costs a call that stays synchronous.

A task's whole cost is ``create_run + get`` (one final poll); each earlier poll of a working run
costs about a ``get``. At the default ``pollIntervalMs`` (2 s), a client polling as the
extension asks makes ``ceil(duration / 2 s)`` polls: 1 for a 2-second report, 2 for the demo's
3-second export, 15 for a 30-second job.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

from bench import instructions, lib

KINDS = ("sync", "create", "create_run", "get", "plain_list", "declared_list")
EXTENSION = "io.modelcontextprotocol/tasks"
MODERN = "2026-07-28"
TASK_RULE = {
    "bench": {"tasks": [{"path": "/api/items/{id}/", "methods": ["GET"], "task": "run"}]},
}


def _senders() -> dict:
    from django.conf import settings
    from django.test import Client

    client = Client(HTTP_HOST=lib.HOST)
    try:
        from mcp_bridge.tasks import runs
    except ImportError:  # a tree from before tasks: its synchronous calls only (the baseline)
        runs = None
    else:
        settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "GROUPS": TASK_RULE}
        created: list[str] = []
        runs.enqueue = lambda record: created.append(record.id)  # the engine, minus the run

    def post(method: str, params: dict, declares: bool, name: str | None = None) -> dict:
        capabilities = {"extensions": {EXTENSION: {}}} if declares else {}
        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
        )
        headers = {
            "HTTP_AUTHORIZATION": f"Token {lib.TOKEN}",
            "HTTP_ACCEPT": "application/json, text/event-stream",
            "HTTP_MCP_PROTOCOL_VERSION": MODERN,
            "HTTP_MCP_METHOD": method,
        }
        if name is not None:
            headers["HTTP_MCP_NAME"] = name
        response = client.post("/mcp/bench/", body, content_type="application/json", **headers)
        assert response.status_code == 200, response.content[:300]
        return response.json()["result"]

    def call(tool: str, arguments: dict, declares: bool) -> dict:
        return post("tools/call", {"name": tool, "arguments": arguments}, declares, tool)

    def sync() -> None:
        assert call("item_detail", {"id": 3}, False)["isError"] is False

    def plain_list() -> None:
        assert call("item_list", {"page": 2}, False)["isError"] is False

    def create() -> str:
        result = call("item_detail", {"id": 3}, True)
        assert result["resultType"] == "task"
        return result["taskId"]

    def create_run() -> str:
        task_id = create()
        runs.run(task_id)
        return task_id

    senders = {"sync": sync, "plain_list": plain_list}
    if runs is None:
        return senders
    done = create_run()

    def get() -> None:
        assert post("tasks/get", {"taskId": done}, True, done)["status"] == "completed"

    def declared_list() -> None:
        assert call("item_list", {"page": 2}, True)["isError"] is False

    return {
        **senders,
        "create": create,
        "create_run": create_run,
        "get": get,
        "declared_list": declared_list,
    }


def _child(kind: str, n: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    senders = _senders()
    for _ in range(instructions.WARM_UP):
        for warm in senders.values():
            warm()
    send = senders[kind]
    gc.collect()
    gc.freeze()
    for _ in range(n):
        send()


def _start(kind: str, n: int, out_file: str) -> subprocess.Popen[str]:
    return lib.callgrind("bench.tasks", ["--child", kind, n], out_file)


def per_request(*kinds: str) -> dict[str, float]:
    """Instructions of one request of each of ``kinds`` (:data:`KINDS`), as
    :func:`bench.instructions.per_request` counts them; every count runs at once."""
    return lib.per_request(_start, kinds, instructions.FEW, instructions.MANY)


def run() -> str:
    counted = per_request(*KINDS)
    run_only = counted["create_run"] - counted["create"]
    whole = counted["create_run"] + counted["get"]
    rows = [
        ["synchronous tools/call (no extension declared)", f"{counted['sync'] / 1e3:,.0f}", "1.00"],
        [
            "tools/call answered with a task",
            f"{counted['create'] / 1e3:,.0f}",
            f"{counted['create'] / counted['sync']:.2f}",
        ],
        ["the run in the worker", f"{run_only / 1e3:,.0f}", f"{run_only / counted['sync']:.2f}"],
        [
            "one tasks/get of a completed task",
            f"{counted['get'] / 1e3:,.0f}",
            f"{counted['get'] / counted['sync']:.2f}",
        ],
        [
            "the task, created, run and fetched (one poll)",
            f"{whole / 1e3:,.0f}",
            f"{whole / counted['sync']:.2f}",
        ],
        ["item_list, extension not declared", f"{counted['plain_list'] / 1e3:,.0f}", "1.00"],
        [
            "item_list, extension declared (no task)",
            f"{counted['declared_list'] / 1e3:,.0f}",
            f"{counted['declared_list'] / counted['plain_list']:.3f}",
        ],
    ]
    return lib.table(
        "What an MCP task costs (callgrind, k instructions per request, 2026-07-28)",
        ["what", "k instr", "× synchronous"],
        rows,
        "Each earlier poll of a working task costs about one tasks/get (a job's also one GET of its URL). "
        "Polls at the default 2 s interval: ceil(duration / 2 s).",
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]))
    else:
        print(run())
