"""Benchmark 8f: browsing a big group, walked by an oracle (docs/discovery.md, "Browse").

``python -m bench.browse [1000] [5000] [realistic] [dumps[=DIR]]`` (by default: 1000,
realistic and dumps).

A model that browses with ``search_tools`` (an empty query: the overview; ``resource``: an
area or a resource; ``page``) instead of searching. The **oracle** always picks the right
branch: it knows the tool it looks for, and so its resource and area. For each target it
starts at the overview, and at every answer:

* the target tool's name is in it: done (the walk's calls and tokens are counted);
* the target's resource is named in it (a resource of the overview, or of an area's list):
  it asks for that resource's tools;
* its area is named: it asks for the area;
* else: the next page of the same answer.

Counted per target: the ``search_tools`` calls, and the estimated tokens
(:func:`mcp_bridge.base.tokens.estimate_tokens`) of their arguments and of the answers' text,
all sent through the real endpoint (``mcp_endpoint``, in process, as an anonymous caller).

Targets:

* ``1000``/``5000``: :mod:`bench.scale`'s generated groups; every tool is a target;
* ``realistic``: the realistic API of the tests and every task of ``bench/search_tasks.json``,
  in English and, for the tasks that have one, in German (the walk in the caller's language:
  the overview's resources are the German verbose names);
* ``dumps``: each real application's tool-set dump of the search evaluation
  (``bench/search_eval/<app>.tools.json.gz``, its held-out tasks in ``<app>.tasks.json``; another
  folder with ``dumps=DIR``). A dump holds what the index reads of each tool, not the tool:
  the walk runs the same browsing answers (:func:`mcp_bridge.toolcall.meta_tools.browse_answer`)
  over a stand-in tool set made from it (each tool's title, description, arguments, path,
  kind and resource; its path parameters as its required arguments).

Target: at most 3 calls and 4,000 tokens per walk on a 1,000-tool group.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from typing import Any

from bench import lib

CALLS_TARGET = 3
TOKENS_TARGET = 4_000
REVISION = "2025-11-25"


def _call(
    group: str, arguments: dict[str, Any], language: str | None
) -> tuple[dict[str, Any], int]:
    """``search_tools(arguments)`` through the endpoint: the answer, and the estimated tokens of
    the call's arguments and of the answer's text."""
    from django.test import RequestFactory

    from mcp_bridge.base.tokens import estimate_tokens
    from mcp_bridge.transport.endpoint import mcp_endpoint

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_tools", "arguments": arguments},
    }
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    request = RequestFactory().post(
        f"/mcp/{group}/",
        json.dumps(body),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION=REVISION,
        **headers,
    )
    response = mcp_endpoint(request, group)
    result = json.loads(response.content)["result"]
    text = result["content"][0]["text"]
    assert not result["isError"], text
    return json.loads(text), estimate_tokens(json.dumps(arguments)) + estimate_tokens(text)


def walk(
    group: str, tool: str, resource: str, area: str, language: str | None, *, call: Any = None
) -> tuple[int, int]:
    """The oracle's walk to ``tool``: ``(calls, tokens)``. ``call``: how a call is answered
    (the endpoint by default)."""
    arguments: dict[str, Any] = {"query": ""}
    calls = tokens = 0
    while True:
        if call is None:
            answer, cost = _call(group, arguments, language)
        else:
            answer, cost = call(arguments)
        calls += 1
        tokens += cost
        if any(entry.get("name") == tool for entry in answer.get("tools", [])):
            return calls, tokens
        named = {
            entry if isinstance(entry, str) else entry["resource"]
            for entry in answer.get("resources", [])
        }
        for entry in answer.get("areas", []):
            if isinstance(entry["resources"], list):
                named.update(entry["resources"])
        areas = {entry["area"] for entry in answer.get("areas", [])}
        if resource in named and answer.get("resource") != resource:
            arguments = {"query": "", "resource": resource}
        elif area in areas:
            arguments = {"query": "", "resource": area}
        elif answer.get("page", 1) < answer.get("pages", 1):
            arguments = {**arguments, "page": answer["page"] + 1}
        else:
            raise AssertionError(f"the walk to {tool} is lost at {arguments}: {answer}")
        if calls > 50:
            raise AssertionError(f"the walk to {tool} does not end")


def _walks(group: str, targets: list[tuple[str, str | None]]) -> list[tuple[int, int]]:
    """Every target's walk: ``targets`` are ``(tool, language)``."""
    from mcp_bridge.toolcall.meta_tools import shape_of
    from mcp_bridge.toolset.registry import get_toolset

    results = []
    for tool, language in targets:
        toolset = get_toolset(group, None, language)
        shape = shape_of(toolset, None if language in (None, "en") else language)
        resource = next(r for r in shape.resources.values() if tool in r.tools)
        results.append(walk(group, tool, resource.label, resource.area, language))
    return results


def _row(label: str, tools: int, walks: list[tuple[int, int]]) -> list[Any]:
    calls = [c for c, _ in walks]
    tokens = [t for _, t in walks]
    return [
        label,
        tools,
        len(walks),
        f"{statistics.mean(calls):.2f}",
        max(calls),
        f"{statistics.mean(tokens):,.0f}",
        f"{max(tokens):,}",
        lib.verdict(max(calls), CALLS_TARGET) + " / " + lib.verdict(max(tokens), TOKENS_TARGET),
    ]


def _scale_child(size: int) -> list[Any]:
    import django

    django.setup()
    from django.test import override_settings

    from bench import scale
    from mcp_bridge.toolset import registry

    module = scale._build_module(size)
    group = f"scale{size}"
    settings = {"DISCOVERY": "search", "FILTER_TOOLS_LIST": False}
    with override_settings(ROOT_URLCONF=module.__name__, MCP_BRIDGE=settings):
        registry.clear_cache()
        tools = [tool.name for tool in registry.get_toolset(group).tools]
        walks = _walks(group, [(tool, None) for tool in tools])
    return _row(f"generated, {size} operations", len(tools), walks)


def _realistic_child() -> list[list[Any]]:
    spec = json.loads((lib.BENCH_DIR / "search_tasks.json").read_text())
    os.environ["DJANGO_SETTINGS_MODULE"] = spec["settings"]
    import django

    django.setup()
    from django.conf import settings as django_settings
    from django.test import override_settings

    from mcp_bridge.toolset import registry

    bridge = {**django_settings.MCP_BRIDGE, "DISCOVERY": "search", "FILTER_TOOLS_LIST": False}
    rows = []
    with override_settings(MCP_BRIDGE=bridge, LANGUAGES=[("en", "English"), ("de", "Deutsch")]):
        registry.clear_cache()
        count = len(registry.get_toolset(spec["group"]).tools)
        for language in ("en", "de"):
            targets = [(task["tool"], language) for task in spec["tasks"] if task.get(language)]
            walks = _walks(spec["group"], targets)
            rows.append(_row(f"realistic API, tasks in {language}", count, walks))
    return rows


class _DumpTool:
    """A tool of a dump, with what browsing reads of a tool."""

    def __init__(self, record: dict[str, Any]) -> None:
        from types import SimpleNamespace

        self.name = record["name"]
        self.title = record["tool"]["title"]
        self.description = record["tool"]["description"]
        required = [name for name in record["tool"]["arguments"] if f"{{{name}}}" in record["path"]]
        self.input_schema = {
            "type": "object",
            "properties": {name: {"type": "string"} for name in record["tool"]["arguments"]},
            "required": required,
        }
        method = record["http_method"]
        self.annotations = {
            "readOnlyHint": method in ("GET", "HEAD"),
            "destructiveHint": method in ("DELETE", "PUT"),
        }
        basename = next((text for field, text in record["fields"] if field == "resource"), None)
        self.method = SimpleNamespace(
            source=SimpleNamespace(path=record["path"], basename=basename)
        )


class _DumpToolSet:
    """A stand-in tool set over a dump: what :func:`~mcp_bridge.toolcall.meta_tools.browse_answer` reads."""

    def __init__(self, dump: dict[str, Any]) -> None:
        from types import SimpleNamespace

        self.group = dump["group"]
        self.tools = [_DumpTool(record) for record in dump["tools"]]
        self.by_name = {tool.name: tool for tool in self.tools}
        self.search_entries: dict[Any, Any] = {}
        resources: dict[str, list[int]] = {}
        for number, record in enumerate(dump["tools"]):
            resources.setdefault(record["resource"], []).append(number)
        self._index = SimpleNamespace(
            resources=resources,
            names=[record["name"] for record in dump["tools"]],
            kinds=[record["kind"] for record in dump["tools"]],
        )

    def index(self, language: str | None = None) -> Any:
        return self._index


def _dumps_child(folder: str) -> list[list[Any]]:
    import gzip
    import pathlib

    import django

    django.setup()
    from mcp_bridge.toolcall.meta_tools import browse_answer, shape_of

    rows = []
    for path in sorted(pathlib.Path(folder).glob("*.tools.json.gz")):
        dump = json.loads(gzip.decompress(path.read_bytes()))
        tasks_file = path.with_name(path.name.replace(".tools.json.gz", ".tasks.json"))
        tasks = [t for t in json.loads(tasks_file.read_text())["tasks"] if t["split"] == "heldout"]
        toolset: Any = _DumpToolSet(dump)
        shape = shape_of(toolset, None)

        def call(arguments: dict[str, Any], toolset: Any = toolset) -> tuple[dict[str, Any], int]:
            from mcp_bridge.base.tokens import estimate_tokens

            result = browse_answer(
                toolset, None, None, arguments.get("resource"), arguments.get("page")
            )
            text = result["content"][0]["text"]
            assert not result["isError"], text
            return json.loads(text), estimate_tokens(json.dumps(arguments)) + estimate_tokens(text)

        walks = []
        for task in tasks:
            # A task with several right tools: the walk to the nearest one.
            best = None
            for tool in task["expected"]:
                resource = next((r for r in shape.resources.values() if tool in r.tools), None)
                if resource is None:
                    continue
                found = walk(toolset.group, tool, resource.label, resource.area, None, call=call)
                best = found if best is None or found < best else best
            assert best is not None, task
            walks.append(best)
        rows.append(
            _row(f"{dump['app']} {dump['version']}, held-out tasks", len(toolset.tools), walks)
        )
    return rows


def _child(which: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "bench.browse", "--child", which],
        cwd=lib.ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": os.environ.get(
                "DJANGO_SETTINGS_MODULE", "bench.site.settings"
            ),
            "PYTHONPATH": str(lib.ROOT),
        },
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"the browse benchmark failed:\n{result.stderr[-3000:]}")
    return result.stdout.strip().splitlines()[-1]


def run(which: tuple[str, ...] = ("1000", "realistic", "dumps")) -> str:
    rows: list[list[Any]] = []
    for name in which:
        lib.log(f"browse: oracle walks, {name}")
        found = json.loads(_child(name))
        rows += found if name in ("realistic", "dumps") or name.startswith("dumps=") else [found]
    return lib.table(
        "8f. Browsing, walked by an oracle: search_tools calls and tokens to reach the right tool",
        [
            "group",
            "tools",
            "walks",
            "calls (mean)",
            "calls (max)",
            "tokens (mean)",
            "tokens (max)",
            f"target ≤ {CALLS_TARGET} calls, ≤ {TOKENS_TARGET:,} tokens",
        ],
        rows,
        "The oracle starts at the overview (an empty query) and always takes the right branch "
        "(the target's resource when the answer names it, else its area, else the next page); "
        "tokens are the estimated tokens of each call's arguments and answer text, through the "
        "endpoint, as an anonymous caller.",
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        which = sys.argv[2]
        if which == "realistic":
            print(json.dumps(_realistic_child()))
        elif which.startswith("dumps"):
            folder = which.partition("=")[2] or str(lib.BENCH_DIR / "search_eval")
            print(json.dumps(_dumps_child(folder)))
        else:
            print(json.dumps(_scale_child(int(which))))
    else:
        print(run(tuple(sys.argv[1:]) or ("1000", "realistic", "dumps")))
