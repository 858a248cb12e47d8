"""The search evaluation on real applications: ``python -m bench.search_eval.run``.

For each application with a tool-set dump (``<app>.tools.json.gz``, :mod:`dump_toolset`) and
tasks (``<app>.tasks.json``, written from the application's user docs by someone who had not
read the ranking code, split into a ``dev`` and a ``held-out`` half before any tuning), the
rank of the expected tool for every task under:

* **bridge**: the bridge's own index (:func:`mcp_bridge.discovery.index.index_texts` over the
  dumped :class:`~mcp_bridge.discovery.index.ToolText` records), as ``search_tools`` ranks;
* **plain BM25**: the same index code with ``plain=True`` (the tools' own texts: name, title,
  description, arguments; no facts, intents or vocabulary);
* **bm25s**: ``bm25s`` (Lucene BM25, k1 1.2, b 0.75) over the same texts as FastMCP indexes;
* **FastMCP BM25**: FastMCP's ``BM25SearchTransform`` (``fastmcp.server.transforms.search``)
  over the tools as FastMCP tools (name, description, argument names and descriptions).

The last two run in another interpreter: ``SEARCH_EVAL_PYTHON=/path/to/venv/bin/python``, a
virtualenv with ``fastmcp`` and ``bm25s`` installed (``bench/search_eval/README.md``); without
it they are left out. Reported: recall@1, recall@5 and the mean reciprocal rank (of the first
expected tool among the first 50; 0 beyond), per application and half.

``--split dev`` ranks the dev halves only (the tuning loop must not look at the held-out
half); ``--misses`` lists the missed tasks of the split(s) shown; ``--json FILE`` writes the
figures. ``--legacy`` also runs ``bench.discovery quality`` (the English and German tasks of
``bench/search_tasks.json`` on the test suite's realistic API).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import pathlib
import subprocess
import sys
import tempfile
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEPTH = 50
SPLITS = ("dev", "held-out")

#: The other interpreter's side: bm25s and FastMCP's BM25 transform, given the tools as
#: FastMCP tools and the queries; answers the first DEPTH names of each ranking.
_OTHER_SIDE = r"""
import asyncio, json, sys
data = json.load(open(sys.argv[1]))
depth = data["depth"]
out = {}
try:
    from fastmcp.tools.base import Tool as FastTool
    from fastmcp.server.transforms.search.bm25 import BM25SearchTransform
    from fastmcp.server.transforms.search.base import _extract_searchable_text
    from fastmcp.server.transforms.search import bm25 as fbm25
except ImportError as exc:
    FastTool = None
    out["fastmcp_error"] = repr(exc)

def fast_tools(tools):
    made = []
    for t in tools:
        schema = {"type": "object", "properties": {
            name: ({"description": text} if text else {}) for name, text in t["arguments"].items()}}
        made.append(FastTool(name=t["name"], description=t["description"] or None, parameters=schema))
    return made

results = {}
for app, spec in data["apps"].items():
    res = {}
    if FastTool is not None:
        tools = fast_tools(spec["tools"])
        transform = BM25SearchTransform(max_results=depth)
        async def rank_all():
            ranked = []
            for query in spec["queries"]:
                found = await transform._search(tools, query)
                ranked.append([t.name for t in found])
            return ranked
        res["fastmcp"] = asyncio.run(rank_all())
        texts = [_extract_searchable_text(t) for t in tools]
    else:
        texts = None
    try:
        import bm25s
        if texts is None:
            raise ImportError("fastmcp missing")
        corpus = [fbm25._tokenize(text) for text in texts]
        retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        retriever.index(corpus, show_progress=False)
        names = [t["name"] for t in spec["tools"]]
        ranked = []
        for query in spec["queries"]:
            tokens = [tok for tok in fbm25._tokenize(query) if tok in retriever.vocab_dict]
            if not tokens:
                ranked.append([])
                continue
            found, scores = retriever.retrieve([tokens], k=min(depth, len(names)), show_progress=False)
            ranked.append([names[i] for i, s in zip(found[0], scores[0]) if s > 0])
        res["bm25s"] = ranked
    except ImportError as exc:
        out["bm25s_error"] = repr(exc)
    results[app] = res
out["results"] = results
print(json.dumps(out))
"""


def load_dump(app: str) -> dict[str, Any]:
    with gzip.open(HERE / f"{app}.tools.json.gz", "rt", encoding="utf-8") as dump:
        return json.load(dump)


TASKS_DIR = HERE


def load_tasks(app: str) -> list[dict[str, Any]]:
    """The tasks of ``app``: each with its query, expected tool name(s) and split."""
    data = json.loads((TASKS_DIR / f"{app}.tasks.json").read_text(encoding="utf-8"))
    tasks = data["tasks"] if isinstance(data, dict) else data
    normalized = []
    for task in tasks:
        expected = task.get("tools") or task.get("expected") or task.get("tool")
        if isinstance(expected, str):
            expected = [expected]
        query = task.get("query") or task.get("task") or task.get("text")
        split = {"heldout": "held-out", "held_out": "held-out"}.get(
            task.get("split"), task.get("split")
        )
        normalized.append({**task, "query": query, "expected": list(expected), "split": split})
    return normalized


def apps() -> list[str]:
    """The applications with both a dump and tasks."""
    return sorted(
        path.name.removesuffix(".tools.json.gz")
        for path in HERE.glob("*.tools.json.gz")
        if (TASKS_DIR / (path.name.removesuffix(".tools.json.gz") + ".tasks.json")).exists()
    )


def bridge_rankings(
    dump: dict[str, Any], queries: list[str], plain: bool, semantic: str | None = None
) -> list[list[str]]:
    """The bridge's rankings of ``queries``; ``semantic``: ``[FUNCTION:]MODEL``, the hybrid
    with that embedding function (default: the bridge's static model reader) and model."""
    from mcp_bridge.discovery import semantic as semantics
    from mcp_bridge.discovery.index import ToolText, embedding_text, index_texts

    texts = [ToolText.from_json(tool) for tool in dump["tools"]]
    if semantic is None:
        index = index_texts(texts, plain=plain)
        return [[name for name, _ in index.search(query, None, DEPTH)[0]] for query in queries]
    embed = embedder(semantic)
    documents = [embedding_text(t) for t in texts]
    index = index_texts(texts, embed=cached(semantic, embed, documents), model=semantic)
    vectors = semantics.unit_rows(cached(semantic, embed, queries)(queries))
    return [
        [name for name, _ in index.search(query, None, DEPTH, vector)[0]]
        for query, vector in zip(queries, vectors, strict=True)
    ]


def embedded_texts() -> list[str]:
    """Every text the hybrid rankers embed: the tools' and the tasks' queries."""
    import django
    from django.conf import settings

    if not settings.configured:
        settings.configure(USE_I18N=False)
        django.setup()
    from mcp_bridge.discovery.index import ToolText, embedding_text

    texts = []
    for app in apps():
        texts += [embedding_text(ToolText.from_json(tool)) for tool in load_dump(app)["tools"]]
        texts += [task["query"] for task in load_tasks(app)]
    return texts


def embedder(spec: str) -> Any:
    """The embedding function of ``[FUNCTION:]MODEL``, its model bound."""
    from django.utils.module_loading import import_string

    function, _, model = spec.rpartition(":")
    chosen = import_string(function or "mcp_bridge.discovery.semantic.static_model")
    return lambda texts: chosen(texts, model=model)


_VECTORS = pathlib.Path(tempfile.gettempdir()) / "search-eval-vectors"


def cached(spec: str, embed: Any, texts: list[str]) -> Any:
    """``embed``, whose vectors of ``texts`` are kept on disk between runs (a transformer
    takes a minute per application; the tuning loop runs many times)."""
    import hashlib

    import numpy

    key = hashlib.sha256(json.dumps([spec, texts]).encode()).hexdigest()[:24]
    path = _VECTORS / f"{key}.npy"

    def embedded(batch: list[str]) -> Any:
        assert batch == texts
        if path.exists():
            return numpy.load(path)
        vectors = numpy.asarray(embed(batch), dtype=numpy.float32)
        _VECTORS.mkdir(exist_ok=True)
        numpy.save(path, vectors)
        return vectors

    return embedded


def other_rankings(payload: dict[str, Any]) -> dict[str, Any]:
    python = os.environ.get("SEARCH_EVAL_PYTHON")
    if not python:
        return {"results": {}, "skipped": "SEARCH_EVAL_PYTHON is not set"}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(payload, handle)
    try:
        done = subprocess.run(
            [python, "-c", _OTHER_SIDE, handle.name], capture_output=True, text=True, check=True
        )
    finally:
        os.unlink(handle.name)
    return json.loads(done.stdout.strip().splitlines()[-1])


def scores(rankings: list[list[str]], tasks: list[dict[str, Any]]) -> dict[str, float]:
    at1 = at5 = reciprocal = 0.0
    for ranked, task in zip(rankings, tasks, strict=True):
        rank = next((i for i, name in enumerate(ranked) if name in task["expected"]), None)
        if rank is not None:
            at1 += rank == 0
            at5 += rank < 5
            reciprocal += 1 / (rank + 1)
    count = len(tasks) or 1
    return {"n": len(tasks), "r@1": at1 / count, "r@5": at5 / count, "mrr": reciprocal / count}


def evaluate(
    splits: tuple[str, ...],
    misses: bool,
    semantic: dict[str, str] | None = None,
    misses_of: str | None = None,
    only_apps: list[str] | None = None,
) -> dict[str, Any]:
    import django
    from django.conf import settings

    if not settings.configured:
        settings.configure(USE_I18N=False)
        django.setup()

    figures: dict[str, Any] = {}
    payload: dict[str, Any] = {"depth": DEPTH, "apps": {}}
    selected: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for app in apps():
        if only_apps and app not in only_apps:
            continue
        dump = load_dump(app)
        tasks = [task for task in load_tasks(app) if task.get("split") in splits]
        selected[app] = (dump, tasks)
        payload["apps"][app] = {
            "tools": [{"name": t["name"], **t["tool"]} for t in dump["tools"]],
            "queries": [task["query"] for task in tasks],
        }
    others = other_rankings(payload)
    for app, (dump, tasks) in selected.items():
        queries = [task["query"] for task in tasks]
        rankers = {
            "bridge": bridge_rankings(dump, queries, plain=False),
            "plain BM25": bridge_rankings(dump, queries, plain=True),
        }
        for label, spec in (semantic or {}).items():
            rankers[label] = bridge_rankings(dump, queries, plain=False, semantic=spec)
        theirs = others.get("results", {}).get(app, {})
        if "bm25s" in theirs:
            rankers["bm25s"] = theirs["bm25s"]
        if "fastmcp" in theirs:
            rankers["FastMCP BM25"] = theirs["fastmcp"]
        figures[app] = {"tools": len(dump["tools"]), "version": dump["version"], "splits": {}}
        for split in splits:
            chosen = [i for i, task in enumerate(tasks) if task.get("split") == split]
            part = [tasks[i] for i in chosen]
            figures[app]["splits"][split] = {
                label: scores([ranking[i] for i in chosen], part)
                for label, ranking in rankers.items()
            }
            if misses:
                for i in chosen:
                    ranked = rankers[misses_of or "bridge"][i]
                    task = tasks[i]
                    rank = next(
                        (r for r, name in enumerate(ranked) if name in task["expected"]), None
                    )
                    if rank is None or rank > 0:
                        where = "—" if rank is None else rank + 1
                        print(
                            f"[{app} {split}] #{where} {task['query']!r} want {task['expected']}"
                            f" got {ranked[:3]}",
                            file=sys.stderr,
                        )
    for key in ("skipped", "fastmcp_error", "bm25s_error"):
        if key in others:
            figures.setdefault("_notes", []).append(f"{key}: {others[key]}")
    return figures


def table(figures: dict[str, Any], splits: tuple[str, ...]) -> str:
    lines = [
        "| application (tools) | split (tasks) | ranking | recall@1 | recall@5 | MRR |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for app, data in figures.items():
        if app.startswith("_"):
            continue
        for split in splits:
            for label, s in data["splits"][split].items():
                lines.append(
                    f"| {app} {data['version']} ({data['tools']:,}) | {split} ({s['n']}) "
                    f"| {label} | {s['r@1']:.2f} | {s['r@5']:.2f} | {s['mrr']:.2f} |"
                )
    for note in figures.get("_notes", []):
        lines.append(f"\n{note}")
    return "\n".join(lines)


def compare(before: dict[str, Any], after: dict[str, Any], splits: tuple[str, ...]) -> str:
    """One table of both runs: the bridge before and after, the baselines of ``after``."""
    lines = [
        "| application (tools) | half (tasks) | ranking | recall@1 | recall@5 | MRR |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for app, data in after.items():
        if app.startswith("_"):
            continue
        for split in splits:
            rows = [
                (
                    "bridge, before",
                    before.get(app, {}).get("splits", {}).get(split, {}).get("bridge"),
                )
            ]
            rows.append(("**bridge, after**", data["splits"][split]["bridge"]))
            for label in ("plain BM25", "bm25s", "FastMCP BM25"):
                rows.append((label, data["splits"][split].get(label)))
            for label, s in rows:
                if s is None:
                    continue
                lines.append(
                    f"| {app} {data['version']} ({data['tools']:,}) | {split} ({s['n']}) "
                    f"| {label} | {s['r@1']:.2f} | {s['r@5']:.2f} | {s['mrr']:.2f} |"
                )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="search evaluation on real applications")
    parser.add_argument("--split", choices=(*SPLITS, "both"), default="both")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--compare", help="a --json file of an earlier run: one table of both")
    parser.add_argument("--tasks-dir", help="where the <app>.tasks.json are (default: here)")
    parser.add_argument(
        "--semantic",
        action="append",
        default=[],
        metavar="LABEL=[FUNCTION:]MODEL",
        help="also rank with semantic search fused (the ranker LABEL; FUNCTION defaults to the "
        "bridge's static model reader); repeatable",
    )
    parser.add_argument("--misses-of", help="the ranker whose misses --misses lists")
    parser.add_argument("--app", action="append", help="only this application (repeatable)")
    options = parser.parse_args()
    if options.tasks_dir:
        global TASKS_DIR
        TASKS_DIR = pathlib.Path(options.tasks_dir)
    splits = SPLITS if options.split == "both" else (options.split,)
    semantic = dict(spec.split("=", 1) for spec in options.semantic)
    figures = evaluate(splits, options.misses, semantic, options.misses_of, options.app)
    if options.compare:
        print(compare(json.loads(pathlib.Path(options.compare).read_text()), figures, splits))
    else:
        print(table(figures, splits))
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps(figures, indent=1))
    if options.legacy:
        subprocess.run([sys.executable, "-m", "bench.discovery", "quality"], cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
