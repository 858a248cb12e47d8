"""What an MCP task costs (docs/tasks.md): ``python -m bench.tasks [counts|trees|polls]``.

**counts** (the default), in instructions, counted as :mod:`bench.instructions` counts a request
(callgrind, ``(count of MANY - count of FEW) / (MANY - FEW)``, after a warm-up,
``gc.freeze()``, ``PYTHONHASHSEED=0``), on the bench site's tiny view (``item_detail``) made a
run task by a ``"tasks"`` rule of ``GROUPS``, through Django's test client, 2026-07-28
requests:

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
costs about a ``get``.

**trees** ``<before-dir> <after-dir> [repeats]``: a call that does not become a task, in two
``mcp_bridge`` trees (:func:`bench.trees.use_tree`), counted the same way: the tiny view's tool
with no task rule, called at 2026-07-28 by a client that does not declare the extension
(``undeclared``) and by one that does (``declared``). Its requests use only what a tree from
before tasks has, so the same script counts both.

**polls** ``[rounds]``: how many ``tasks/get`` a job takes at the default ``pollIntervalMs``,
against the demo served by gunicorn (:func:`bench.soak.start_server`: one sync worker, a fresh
SQLite database, the demo's own settings, so the default ``TASK_ENGINE`` and
``TASK_POLL_INTERVAL_MS``). The official SDK client with ``demo_project/mcp_client.py``'s
``TasksExtension`` calls the reports group's ``export_start`` (a 202 + ``Location`` job of
3 s), then ``sales_report`` (a run of 2 s) twice, the second answered by ``@cached``; each
round on a new server. Every POST the client sends is read on its way out, so the polls are
counted on the wire, not by the extension.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import instructions, lib

KINDS = ("sync", "create", "create_run", "get", "plain_list", "declared_list")
EXTENSION = "io.modelcontextprotocol/tasks"
MODERN = "2026-07-28"
TASK_RULE = {
    "bench": {"tasks": [{"path": "/api/items/{id}/", "methods": ["GET"], "task": "run"}]},
}


def _poster() -> Callable[[str, dict, bool, str | None], dict]:
    """One 2026-07-28 request to the bench group (:func:`bench.lib.modern_poster`), declaring
    the extension when asked."""
    return lib.modern_poster({"extensions": {EXTENSION: {}}})


def _senders() -> dict:
    from django.conf import settings

    try:
        from mcp_bridge.tasks import runs
    except ImportError:  # a tree from before tasks: its synchronous calls only (the baseline)
        runs = None
    else:
        settings.MCP_BRIDGE = {**settings.MCP_BRIDGE, "GROUPS": TASK_RULE}
        created: list[str] = []
        runs.enqueue = lambda record: created.append(record.id)  # the engine, minus the run
    post = _poster()

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
    instructions.measure(_senders(), kind, n)


def _start(kind: str, n: int, out_file: str) -> subprocess.Popen[str]:
    return lib.callgrind("bench.tasks", ["--child", kind, n], out_file)


def per_request(*kinds: str) -> dict[str, float]:
    """Instructions of one request of each of ``kinds`` (:data:`KINDS`), as
    :func:`bench.instructions.per_request` counts them; every count runs at once."""
    return lib.per_request(_start, kinds, instructions.FEW, instructions.MANY)


def run() -> str:
    """The ``counts`` mode (the default): every kind of :data:`KINDS`, one count each."""
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
        "Each earlier poll of a working task costs about one tasks/get (a job's also one GET of its URL); "
        "how many polls a job takes: python -m bench.tasks polls.",
    )


# --- trees: a call that does not become a task, before and after ----------------------------

#: The kinds of the ``trees`` mode: the tiny view's tool, no task rule, at 2026-07-28, from a
#: client that does not declare the Tasks extension and from one that does.
TREE_KINDS = ("undeclared", "declared")
#: Counts per figure of the ``trees`` mode, the median reported (a count moves by up to ~15k
#: instructions per request between runs, a quarter of the 1 % being measured).
TREE_REPEATS = 3
#: Requests of the two counted processes of a ``trees`` figure: fewer than benchmark 5's, so that
#: three repeats of eight processes fit a busy 2-core host (80 requests still put a process's
#: ±0.5M-instruction noise at about 0.1 % of a tiny call).
TREE_COUNTS = (20, 100)


def _tree_senders() -> dict[str, Callable[[], None]]:
    post = _poster()

    def sender(declares: bool) -> Callable[[], None]:
        def send() -> None:
            params = {"name": "item_detail", "arguments": {"id": 3}}
            result = post("tools/call", params, declares, "item_detail")
            assert result["isError"] is False and "taskId" not in result, result

        return send

    return {kind: sender(kind == "declared") for kind in TREE_KINDS}


def _tree_child(root: str, kind: str, n: int) -> None:
    from bench import trees

    trees.use_tree(root)
    instructions.measure(_tree_senders(), kind, n)


def trees_counts(before: str, after: str, repeats: int = TREE_REPEATS) -> str:
    """The ``trees`` mode: both kinds in both trees, ``repeats`` times (the eight processes of
    one repeat at once)."""
    roots = {"before": os.path.abspath(before), "after": os.path.abspath(after)}
    keys = [(tree, kind) for kind in TREE_KINDS for tree in roots]

    def start(key: tuple[str, str], n: int, out_file: str) -> subprocess.Popen[str]:
        tree, kind = key
        return lib.callgrind("bench.tasks", ["--tree-child", roots[tree], kind, n], out_file)

    few, many = TREE_COUNTS
    counted: dict[tuple[str, str], list[float]] = {key: [] for key in keys}
    for repeat in range(repeats):
        lib.log(f"tasks trees: repeat {repeat + 1} of {repeats}, {len(keys) * 2} processes")
        for key, value in lib.per_request(start, keys, few, many).items():
            counted[key].append(value)
            lib.log(f"tasks trees: {key[0]} {key[1]}: {value:,.0f} instructions per request")
    rows = []
    for kind in TREE_KINDS:
        before_k, after_k = (statistics.median(counted[tree, kind]) for tree in roots)
        rows.append(
            [
                kind,
                f"{before_k / 1e3:,.1f}",
                f"{after_k / 1e3:,.1f}",
                f"{(after_k / before_k - 1) * 100:+.2f} %",
                lib.verdict(after_k / before_k, 1.01),
                "; ".join(
                    f"{tree} {min(counted[tree, kind]) / 1e3:,.1f}-{max(counted[tree, kind]) / 1e3:,.1f}k"
                    for tree in roots
                ),
            ]
        )
    return lib.table(
        "A call that does not become a task, before and after (callgrind, k instructions per request)",
        ["2026-07-28 item_detail, no task rule", "before", "after", "delta", "target", "ranges"],
        rows,
        f"before: {roots['before']}; after: {roots['after']} (their mcp_bridge, this checkout's "
        f"bench site). Per request = (count of {many} - count of {few}) / {many - few}, after "
        f"{instructions.WARM_UP} of both kinds; "
        f"PYTHONHASHSEED=0; the median of {repeats} counts.",
    )


# --- polls: how many tasks/get a job takes at the default interval ---------------------------

#: The demo user who may call the reports group (staff).
POLLS_USER = "alice"


async def _call_counting(
    url: str, token: str, tool: str | None
) -> tuple[str, dict[str, int], float]:
    """One call of ``tool`` by a fresh session of the official client with ``TasksExtension``
    (``None``: a ``tools/list`` instead, to warm the server): the revision the session
    negotiated, the JSON-RPC methods the client POSTed for the call (counted on the wire), and
    the seconds from the call to its result. Raises ``AssertionError`` on an ``isError``
    result."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from demo_project.mcp_client import TIMEOUT, TasksExtension

    sent: dict[str, int] = {}

    async def count(request: Any) -> None:
        if request.method == "POST":
            method = json.loads(request.content).get("method", "(answer)")
            sent[method] = sent.get(method, 0) + 1

    async with httpx2.AsyncClient(
        headers={"Authorization": f"Token {token}"},
        timeout=TIMEOUT,
        event_hooks={"request": [count]},
    ) as http_client:
        transport = streamable_http_client(url, http_client=http_client)
        async with Client(transport, mode="auto", extensions=[TasksExtension()]) as client:
            sent.clear()  # the session's opening (server/discover, or initialize)
            started = time.perf_counter()
            if tool is None:
                await client.list_tools()
            else:
                result = await client.call_tool(tool, {})
                assert not result.is_error, result
            return client.protocol_version, dict(sent), time.perf_counter() - started


def polls(rounds: int = 3) -> str:
    """The ``polls`` mode: per round a new demo server, warmed by one ``tools/list`` (its
    worker builds the group's tools, as any server's first request does), then ``export_start``,
    ``sales_report`` and ``sales_report`` again (from ``@cached``)."""
    from bench import soak

    calls = (
        ("export_start", "export_start"),
        ("sales_report", "sales_report"),
        ("sales_report (cached)", "sales_report"),
    )
    seen: dict[str, list[tuple[str, int, float]]] = {label: [] for label, _ in calls}
    for round_ in range(rounds):
        lib.log(f"tasks polls: round {round_ + 1} of {rounds}, a new demo server")
        with tempfile.TemporaryDirectory() as scratch:
            server = soak.start_server(Path(scratch), workers=1)
            try:
                url = f"http://{lib.HOST}:{server.port}/mcp/reports/"
                token = server.tokens[POLLS_USER]
                asyncio.run(_call_counting(url, token, None))
                for label, tool in calls:
                    revision, sent, seconds = asyncio.run(_call_counting(url, token, tool))
                    assert sent.get("tools/call") == 1, (label, sent)
                    seen[label].append((revision, sent.get("tasks/get", 0), seconds))
                    lib.log(f"tasks polls: {label}: {revision}, {sent}, {seconds:.2f} s")
            finally:
                server.process.terminate()
                server.process.wait(timeout=30)
    rows = [
        [
            label,
            ", ".join(str(n) for _, n, _ in values),
            f"{statistics.median(s for _, _, s in values):.2f}",
            ", ".join(sorted({r for r, _, _ in values})),
        ]
        for label, values in seen.items()
    ]
    return lib.table(
        "Polls per job at the default pollIntervalMs (the demo's reports group)",
        ["call", "tasks/get per call, each round", "median seconds to the result", "revision"],
        rows,
        f"gunicorn, 1 sync worker, the demo's settings (TASK_ENGINE and TASK_POLL_INTERVAL_MS "
        f"at their defaults); the official mcp client with demo_project/mcp_client.py's "
        f"TasksExtension, a new session per call; {rounds} rounds, each on a new server and "
        "database, warmed by one tools/list. export_start: a 202 + Location job of 3 s; "
        "sales_report: a run of 2 s.",
    )


MODES = {"counts": run, "trees": trees_counts, "polls": polls}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1:2] == ["--tree-child"]:
        _tree_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        mode, *args = sys.argv[1:] or ["counts"]
        if mode not in MODES:
            sys.exit(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
        MODES[mode](*(int(a) if a.isdigit() else a for a in args))
