"""Benchmark 8: discovery of big groups (docs/discovery.md): ``bash bench/run discovery``.

``python -m bench.discovery [listing] [quality] [cost] [instructions]`` (all by default).

* **listing**: the ``tools/list`` of the demo's groups and of generated groups of 1,000 and
  5,000 operations (:mod:`bench.scale`'s, shaped like a large real API), direct and in
  search mode: tools, bytes, estimated tokens (:func:`mcp_bridge.base.tokens.estimate_tokens`),
  and the mode ``"auto"`` picks. Targets: the search listing stays under 2,000 tokens
  whatever the size; a search answer holds at most the requested number of tools (and
  stays under ``SEARCH_RESULT_TOKENS``).
* **quality**: recall@1 and recall@5 of ``search_tools`` on the realistic API of the tests
  and the plain-language tasks of ``bench/search_tasks.json``, in English and German (the
  German tasks run against the German tool set, as a ``de`` client gets it). Target:
  recall@5 ≥ 0.9 in English. With ``BENCH_SEMANTIC=<embedding function>=<model>`` (a
  ``SEARCH_EMBEDDING_FUNCTION`` and its ``SEARCH_EMBEDDING_MODEL``, for example
  ``bench.search_eval.embeddings.minilm=<folder>``), a row of the default ranking fused with
  that model's semantic ranking is added per language: the vectors of each language's own tool
  texts, as a translated tool set gets them.
* **cost**: the CPU time of a warm search over the 5,000-tool group (``time.process_time``,
  the median and the slowest of the queries), the index's build time and pickled size.
  Target ≤ 5 ms.
* **instructions**: a proxied ``tools/call`` (``call_read_only_tool``) against the same call
  by the tool's name, in one process each under callgrind (as :mod:`bench.instructions`
  counts them: ``(count of MANY - count of FEW) / (MANY - FEW)``). Target ≤ 1.02×.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any

from bench import lib

SIZES = (1000, 5000)
TASKS = lib.BENCH_DIR / "search_tasks.json"
LISTING_TARGET = 2000
SEARCH_CPU_TARGET_MS = 5.0
RECALL_TARGET = 0.9
INSTRUCTIONS_TARGET = 1.02
REVISION = "2025-11-25"
#: The queries of the cost benchmark over the generated group (its resources are numbered).
COST_QUERIES = (
    "show all resource 123",
    "details of resource 4021 in app 7",
    "delete resource 77",
    "rename resource 815",
    "add a new resource 3 with a site and a tenant",
    "which resources exist with status planned",
    "update the custom fields of resource 12",
    "list resources of rack and region",
    "remove several resources at once",
    "resource 600 comments",
)


def _setup(settings_module: str = "bench.site.settings") -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", settings_module)
    import django

    django.setup()


def _sizes(toolset: Any, profile: str) -> dict[str, tuple[int, int, int]]:
    from mcp_bridge.discovery.metatools import search_listing
    from mcp_bridge.discovery.modes import listing_size

    direct = toolset.tools
    search = search_listing(toolset.group, toolset.tools)
    return {
        "direct": (len(direct), *listing_size(direct, REVISION, profile)),
        "search": (len(search), *listing_size(search, REVISION, profile)),
    }


def _answer_counts(toolset: Any, queries: tuple[str, ...]) -> tuple[int, int]:
    """The most tools any answer held for its limit (as a share: must be ≤ 1), and the
    largest answer's estimated tokens."""
    from mcp_bridge.base.encoding import dumps
    from mcp_bridge.base.tokens import estimate_tokens
    from mcp_bridge.toolcall.meta_tools import search_answer

    worst, largest = 0.0, 0
    for limit in (1, 5, 20):
        for query in queries:
            answer = search_answer(query, limit, toolset, REVISION, "defs", None)
            worst = max(worst, len(answer["tools"]) / limit)
            largest = max(largest, estimate_tokens(dumps(answer)))
    return worst, largest


def _listing_row(label: str, toolset: Any, queries: tuple[str, ...]) -> list[Any]:
    sizes = _sizes(toolset, "defs")
    direct, search = sizes["direct"], sizes["search"]
    worst, largest = _answer_counts(toolset, queries)
    return [
        label,
        direct[0],
        f"{direct[1] / 1024:,.0f}",
        f"{direct[2]:,}",
        search[0],
        f"{search[1] / 1024:,.1f}",
        f"{search[2]:,}",
        "search" if toolset.discovery.search else "direct",
        f"{direct[2] / search[2]:,.0f}",
        f"{worst:.2f}",
        f"{largest:,}",
    ]


def _demo_rows() -> list[list[Any]]:
    """The demo project's groups, in a child process (its own settings module)."""
    result = subprocess.run(
        [sys.executable, "-m", "bench.discovery", "--demo-child"],
        cwd=lib.ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "demo_project.settings",
            "PYTHONPATH": str(lib.ROOT),
        },
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def _demo_child() -> None:
    _setup("demo_project.settings")
    from mcp_bridge.toolset.registry import get_groups, get_toolset

    rows = []
    for group, versions in get_groups().items():
        for version in versions:
            toolset = get_toolset(group, version)
            rows.append(
                _listing_row(f"demo {group}", toolset, ("list products", "cancel an order"))
            )
    print(json.dumps(rows))


_generated: dict[int, Any] = {}


def _generated_toolset(size: int) -> Any:
    """The tool set of a generated group of ``size`` operations, built once per process."""
    if size in _generated:
        return _generated[size]
    from django.test import override_settings

    from bench.scale import _build_module
    from mcp_bridge.toolset import registry

    module = _build_module(size)
    override = override_settings(
        ROOT_URLCONF=module.__name__, MCP_BRIDGE={"SERVER_NAME": "bench", "DISCOVERY": "auto"}
    )
    override.enable()
    registry.clear_cache()
    lib.log(f"discovery: building the generated group of {size} operations")
    toolset = _generated[size] = registry.get_toolset(f"scale{size}")
    return toolset


def listing() -> str:
    _setup()
    rows = _demo_rows()
    for size in SIZES:
        toolset = _generated_toolset(size)
        rows.append(_listing_row(f"generated {size}", toolset, COST_QUERIES))
    worst_search = max(int(str(row[6]).replace(",", "")) for row in rows)
    return lib.table(
        "8a. Listing cost, direct vs search (tools/list, schema profile defs, 2025-11-25)",
        [
            "group",
            "direct tools",
            "direct KiB",
            "direct est. tokens",
            "search tools",
            "search KiB",
            "search est. tokens",
            "auto picks",
            "direct/search tokens",
            "most tools per answer / limit",
            "largest answer est. tokens",
        ],
        rows,
        f"Estimated tokens: UTF-8 bytes / 4 (mcp_bridge.base.tokens). The search listing is the pinned "
        f"tools (none here) and the meta-tools. Largest search listing: {worst_search:,} tokens, target "
        f"< {LISTING_TARGET:,}: {lib.verdict(worst_search, LISTING_TARGET - 1)}. Answers: queries "
        f"with limit 1, 5 and 20; a share ≤ 1.00 means no answer held more tools than asked for, "
        f"and every answer stays under SEARCH_RESULT_TOKENS (6,000).",
    )


def cost() -> str:
    _setup()
    from mcp_bridge.discovery.index import build_index

    toolset = _generated_toolset(5000)
    start = time.process_time()
    index = build_index(toolset.tools)
    build_s = time.process_time() - start
    pickled = len(pickle.dumps(index))
    samples: dict[str, list[float]] = {query: [] for query in COST_QUERIES}
    rounds = lib.scaled(50, 5)
    for _ in range(rounds):
        for query in COST_QUERIES:
            start = time.process_time()
            index.search(query, None, 5)
            samples[query].append(time.process_time() - start)
    per_query = {query: statistics.median(times) for query, times in samples.items()}
    median = statistics.median(per_query.values()) * 1000
    slowest = max(per_query.values()) * 1000
    rows = [
        [
            len(toolset.tools),
            f"{build_s:.2f}",
            f"{pickled / 1024:,.0f}",
            f"{median:.2f}",
            f"{slowest:.2f}",
            lib.verdict(slowest, SEARCH_CPU_TARGET_MS),
        ]
    ]
    return lib.table(
        "8c. Cost of a warm search (CPU, in process)",
        [
            "tools",
            "index build s (CPU)",
            "index pickled KiB",
            "median ms",
            "slowest query ms",
            "target",
        ],
        rows,
        f"{len(COST_QUERIES)} queries, {rounds} rounds each; per query the median of its rounds; "
        "time.process_time (CPU of this process). The index is built once per tool set and language.",
    )


def semantic_cost() -> str:
    """Semantic search's cost beside the lexical index's, over the generated groups: the build
    (CPU), the bytes the vectors add to a stored build, the memory they hold loaded, and a
    warm search (the query's embedding included), with the static model in the folder
    ``BENCH_STATIC_MODEL`` (``python -m bench.search_eval.embeddings distill ...``)."""
    _setup()
    from mcp_bridge.discovery import semantic
    from mcp_bridge.discovery.index import build_index

    folder = os.environ.get("BENCH_STATIC_MODEL")
    if not folder:
        return "8d. Semantic search: skipped, BENCH_STATIC_MODEL is not set\n"

    def embed(texts: list[str]) -> Any:
        return semantic.static_model(texts, folder)

    embed(["warm the model up"])
    rows = []
    for size in (1000, 5000):
        toolset = _generated_toolset(size)
        build_index(toolset.tools)  # warm-up: what the first build of a process pays once
        # Three builds of each, alternating; the medians. A single pair measured mostly which
        # came first.
        builds: dict[str, list[float]] = {"off": [], "on": []}
        for _ in range(3):
            start = time.process_time()
            lexical = build_index(toolset.tools)
            builds["off"].append(time.process_time() - start)
            start = time.process_time()
            hybrid = build_index(toolset.tools, embed=embed, model=folder)
            builds["on"].append(time.process_time() - start)
        lexical_s = statistics.median(builds["off"])
        hybrid_s = statistics.median(builds["on"])
        vectors = hybrid.semantic
        stored = len(pickle.dumps(vectors))
        held = len(vectors.data) + vectors.matrix().nbytes
        rounds = lib.scaled(50, 5)
        timings: dict[str, dict[str, list[float]]] = {"off": {}, "on": {}}
        for _ in range(rounds):
            for query in COST_QUERIES:
                start = time.process_time()
                lexical.search(query, None, 5)
                timings["off"].setdefault(query, []).append(time.process_time() - start)
                start = time.process_time()
                hybrid.search(query, None, 5, semantic.embed_query(query, embed))
                timings["on"].setdefault(query, []).append(time.process_time() - start)
        for mode in ("off", "on"):
            medians = [statistics.median(times) * 1000 for times in timings[mode].values()]
            rows.append(
                [
                    f"{len(toolset.tools):,}",
                    mode,
                    f"{statistics.median(medians):.2f}",
                    f"{max(medians):.2f}",
                    f"{lexical_s if mode == 'off' else hybrid_s:.2f}",
                    f"{hybrid_s / lexical_s:.2f}" if mode == "on" else "",
                    f"{(hybrid_s - lexical_s) / len(toolset.tools) * 1000:.2f}"
                    if mode == "on"
                    else "",
                    f"{stored / 1024:,.0f}" if mode == "on" else "",
                    f"{held / 1024:,.0f}" if mode == "on" else "",
                ]
            )
    return lib.table(
        "8d. Semantic search on and off (static model, CPU, in process)",
        [
            "tools",
            "semantic",
            "median ms",
            "slowest query ms",
            "index build s (CPU)",
            "build / lexical",
            "build s added per 1,000 tools",
            "vectors stored KiB",
            "vectors held KiB",
        ],
        rows,
        f"{len(COST_QUERIES)} queries, {rounds} rounds each; per query the median of its rounds, "
        "the query's embedding included; time.process_time. Builds: the median of three of "
        "each, alternating, after one untimed. Stored: the pickled vectors (float16) "
        "in the build; held: those and their float32 matrix, per loaded index.",
    )


def _recall(
    tasks: list[dict[str, Any]], index: Any, key: str, embed: Any = None
) -> tuple[float, float, list[str]]:
    from mcp_bridge.discovery import semantic

    hits1 = hits5 = 0
    misses = []
    for task in tasks:
        vector = semantic.embed_query(task[key], embed) if embed is not None else None
        ranked, _ = index.search(task[key], None, 5, vector)
        names = [name for name, _ in ranked[:5]]
        expected = task["tool"] if isinstance(task["tool"], list) else [task["tool"]]
        if names[:1] and names[0] in expected:
            hits1 += 1
        if any(name in expected for name in names):
            hits5 += 1
        else:
            misses.append(f"{task[key]!r} → {names[:3]} (expected {expected})")
    return hits1 / len(tasks), hits5 / len(tasks), misses


def quality() -> str:
    """Recall on the realistic API, in a child process with the settings the tasks name."""
    spec = json.loads(TASKS.read_text())
    result = subprocess.run(
        [sys.executable, "-m", "bench.discovery", "--quality-child"],
        cwd=lib.ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": spec["settings"], "PYTHONPATH": str(lib.ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"the quality benchmark failed:\n{result.stderr[-3000:]}")
    sys.stderr.write(result.stderr)
    rows = json.loads(result.stdout.strip().splitlines()[-1])
    return lib.table(
        "8b. Search quality on the realistic API (bench/search_tasks.json)",
        ["language", "ranking", "tools", "tasks", "recall@1", "recall@5", "target recall@5"],
        rows,
        "A task is found at k when its tool is among the first k results of search_tools; German "
        "tasks search the German tool set (its catalogue's texts, the source texts where it has none; "
        "the models' German verbose names). The vocabulary (mcp_bridge.discovery.index.VOCABULARY) was "
        "written while looking at these tasks: the row without it is the fairer figure for other APIs.",
    )


def _without_vocabulary(toolset: Any, language: str) -> Any:
    """The default index, built with an empty vocabulary."""
    from mcp_bridge.discovery import index as search

    saved = search.VOCABULARY
    search.VOCABULARY = ()
    try:
        return search.build_index(toolset.tools, None, None if language == "en" else language)
    finally:
        search.VOCABULARY = saved


def _bench_embedder() -> tuple[Any, str]:
    """``BENCH_SEMANTIC`` (``<dotted embedding function>=<model>``) as an embedder with its
    model bound, or ``(None, "")``."""
    import functools

    from django.utils.module_loading import import_string

    spec = os.environ.get("BENCH_SEMANTIC", "")
    if not spec:
        return None, ""
    path, _, model = spec.partition("=")
    return functools.partial(import_string(path), model=model), model


def _quality_child() -> None:
    """The tasks file names the realistic API's settings module and group."""
    spec = json.loads(TASKS.read_text())
    _setup(spec["settings"])
    from mcp_bridge.toolset import registry

    tasks = spec["tasks"]
    rows = []
    all_misses = []
    from mcp_bridge.discovery.index import VOCABULARY, build_index

    embed, model = _bench_embedder()
    for language in ("en", "de"):
        toolset = registry.get_toolset(spec["group"], None, language)
        own = [t for t in tasks if t.get(language)]
        variants: list[tuple[str, Any, Any]] = [
            ("plain BM25 (the tool texts only)", build_index(toolset.tools, plain=True), None),
            ("+ facts, verbs, abbreviations", _without_vocabulary(toolset, language), None),
            ("+ vocabulary (the default)", toolset.index(language), None),
        ]
        if embed is not None:
            fused = build_index(
                toolset.tools,
                None,
                None if language == "en" else language,
                embed=embed,
                model=model,
            )
            variants.append((f"+ semantic ({embed.func.__name__})", fused, embed))
        for label, index, query_embed in variants:
            at1, at5, misses = _recall(own, index, language, query_embed)
            if index is toolset.index(language):
                all_misses += misses
            verdict = (
                lib.verdict(at5, RECALL_TARGET, at_most=False)
                if language == "en" and index is toolset.index(language)
                else ""
            )
            rows.append(
                [language, label, len(toolset.tools), len(own), f"{at1:.2f}", f"{at5:.2f}", verdict]
            )
    assert VOCABULARY
    for miss in all_misses:
        lib.log(f"miss: {miss}")
    print(json.dumps(rows))


FEW, MANY = 50, 250


def _instructions_child(kind: str, n: int) -> None:
    _setup()
    from django.test import Client, override_settings

    override_settings(
        MCP_BRIDGE={"SERVER_NAME": "bench", "DISCOVERY": {"bench": "search"}}
    ).enable()
    tool, arguments, _ = lib.IN_PROCESS_CASES["tiny"]
    params = (
        {"name": tool, "arguments": arguments}
        if kind == "direct"
        else {"name": "call_read_only_tool", "arguments": {"name": tool, "arguments": arguments}}
    )
    client = Client(HTTP_HOST=lib.HOST)
    body = lib.mcp_message("tools/call", params)
    headers = {
        "HTTP_AUTHORIZATION": f"Token {lib.TOKEN}",
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": lib.REVISION,
    }

    def send(body: bytes = body) -> None:
        response = client.post("/mcp/bench/", body, content_type="application/json", **headers)
        assert response.status_code == 200 and b'"isError":false' in response.content, (
            response.content[:300]
        )

    other = lib.mcp_message(
        "tools/call",
        {"name": "call_read_only_tool", "arguments": {"name": tool, "arguments": arguments}}
        if kind == "direct"
        else {"name": tool, "arguments": arguments},
    )
    for _ in range(50):  # both kinds warm up, whichever is measured (as bench.instructions)
        send()
        send(other)
    for _ in range(n):
        send()


def _count(kind: str, n: int, out_file: str) -> subprocess.Popen[str]:
    return lib.callgrind("bench.discovery", ["--instructions-child", kind, n], out_file)


def instructions() -> str:
    if shutil.which("valgrind") is None:
        return "Proxied-call instruction counts skipped: valgrind is not installed.\n"
    per_call = {}
    for kind in ("direct", "proxied"):
        lib.log(f"discovery instructions: {kind} tools/call, {FEW} and {MANY} under callgrind")
        per_call[kind] = lib.per_request(_count, [kind], FEW, MANY)[kind]
    ratio = per_call["proxied"] / per_call["direct"]
    return lib.table(
        "8d. A proxied call against the same call by name (callgrind, in process)",
        ["tool", "by name k instr", "proxied k instr", "ratio", "target"],
        [
            [
                lib.IN_PROCESS_CASES["tiny"][0],
                f"{per_call['direct'] / 1e3:,.0f}",
                f"{per_call['proxied'] / 1e3:,.0f}",
                f"{ratio:.3f}",
                lib.verdict(ratio, INSTRUCTIONS_TARGET),
            ]
        ],
        f"The bench group in search mode; per call = (count of {MANY} - count of {FEW}) / {MANY - FEW}, "
        "after 50 of each kind; PYTHONHASHSEED=0.",
    )


PARTS = {
    "listing": listing,
    "quality": quality,
    "cost": cost,
    "semantic": semantic_cost,
    "instructions": instructions,
}


def run(parts: list[str] | None = None) -> str:
    return "".join(PARTS[name]() + "\n" for name in parts or PARTS)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--demo-child"]:
        _demo_child()
    elif sys.argv[1:2] == ["--quality-child"]:
        _quality_child()
    elif sys.argv[1:2] == ["--instructions-child"]:
        _instructions_child(sys.argv[2], int(sys.argv[3]))
    else:
        names = sys.argv[1:]
        unknown = set(names) - set(PARTS)
        if unknown:
            sys.exit(
                f"unknown part(s): {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}"
            )
        print(run(names or None))
