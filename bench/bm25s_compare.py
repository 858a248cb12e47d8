"""Does ``bm25s`` earn a place as an optional extra? The plain BM25 of
:mod:`mcp_bridge.discovery.index` against bm25s on the same documents and queries.

``BM25S_PYTHON=/path/to/venv/bin/python python -m bench.bm25s_compare``: the interpreter of a
virtualenv with ``bm25s`` (and numpy, scipy) installed; the bridge's side runs here, with the
realistic API's settings.

Both sides get the very same input: each tool of the realistic API as one flat list of terms
(every field of its document, :func:`~mcp_bridge.discovery.index.terms`, no field weights), and
each English task of ``bench/search_tasks.json`` as its terms. Compared:

* recall@1 and recall@5 of the two rankings (plain BM25 each: no field weights, intents or
  vocabulary, so that only the engines differ);
* the CPU time of a query over 5,000 documents (the realistic documents repeated, each with a
  term of its own), the median over the tasks.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from typing import Any

from bench import lib

SIZE = 5000

_BM25S_SIDE = r"""
import json, statistics, sys, time
import bm25s
data = json.load(open(sys.argv[1]))
def recall(docs, names):
    retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    retriever.index(docs, show_progress=False)
    hits1 = hits5 = 0
    for terms, expected in data["queries"]:
        if not terms:
            continue
        found, _ = retriever.retrieve([terms], k=5, show_progress=False)
        top = [names[i] for i in found[0]]
        hits1 += top[0] == expected
        hits5 += expected in top
    return hits1, hits5, retriever
h1, h5, _ = recall(data["docs"], data["names"])
big = [doc + [f"doc{i}"] for i, doc in enumerate(data["docs"] * (data["size"] // len(data["docs"]) + 1))][: data["size"]]
retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
start = time.process_time()
retriever.index(big, show_progress=False)
build = time.process_time() - start
times = []
for terms, _ in data["queries"]:
    if not terms:
        continue
    start = time.process_time()
    retriever.retrieve([terms], k=5, show_progress=False)
    times.append(time.process_time() - start)
print(json.dumps([h1, h5, build, statistics.median(times), max(times)]))
"""


def _documents() -> dict[str, Any]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.realistic.settings")
    import django

    django.setup()
    from mcp_bridge.discovery import index as search
    from mcp_bridge.toolset.registry import get_toolset

    spec = json.loads((lib.BENCH_DIR / "search_tasks.json").read_text())
    toolset = get_toolset(spec["group"])
    docs = [
        [term for _, text in search._fields(tool) for term in search.terms(text)]
        for tool in toolset.tools
    ]
    queries = [(search.terms(task["en"]), task["tool"]) for task in spec["tasks"]]
    return {
        "names": [tool.name for tool in toolset.tools],
        "docs": docs,
        "queries": queries,
        "size": SIZE,
    }


def _flat_index(names: list[str], docs: list[list[str]]) -> Any:
    from mcp_bridge.discovery.index import ACTION, index_of

    counts = []
    for doc in docs:
        count: dict[str, float] = {}
        for term in doc:
            count[term] = count.get(term, 0.0) + 1.0
        counts.append(count)
    return index_of(names, counts, [ACTION] * len(docs), [False] * len(docs), {}, intents=False)


def _plain_side(data: dict[str, Any]) -> list[float]:
    index = _flat_index(data["names"], data["docs"])
    hits1 = hits5 = 0
    for terms, expected in data["queries"]:
        top = [name for name, _ in index.search(" ".join(terms), None, 5)[0]]
        hits1 += bool(top) and top[0] == expected
        hits5 += expected in top
    repeated = data["docs"] * (SIZE // len(data["docs"]) + 1)
    big = [doc + [f"doc{i}"] for i, doc in enumerate(repeated)][:SIZE]
    start = time.process_time()
    index = _flat_index([f"t{i}" for i in range(SIZE)], big)
    build = time.process_time() - start
    times = []
    for terms, _ in data["queries"]:
        start = time.process_time()
        index.search(" ".join(terms), None, 5)
        times.append(time.process_time() - start)
    return [hits1, hits5, build, statistics.median(times), max(times)]


def run() -> str:
    python = os.environ.get("BM25S_PYTHON")
    data = _documents()
    rows = [["plain (mcp_bridge.discovery.index)", *_plain_side(data)]]
    if python:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as handle:
            json.dump(data, handle)
            handle.flush()
            result = subprocess.run(
                [python, "-c", _BM25S_SIDE, handle.name], capture_output=True, text=True, check=True
            )
        version = subprocess.run(
            [python, "-c", "import importlib.metadata as m; print(m.version('bm25s'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        rows.append([f"bm25s {version}", *json.loads(result.stdout.strip().splitlines()[-1])])
    tasks = len(data["queries"])
    return lib.table(
        "8e. The plain BM25 against bm25s (same documents, same queries)",
        [
            "engine",
            "recall@1",
            "recall@5",
            f"index {SIZE:,} docs s (CPU)",
            "median query ms",
            "slowest query ms",
        ],
        [
            [
                label,
                f"{h1 / tasks:.2f}",
                f"{h5 / tasks:.2f}",
                f"{build:.2f}",
                f"{median * 1000:.2f}",
                f"{slowest * 1000:.2f}",
            ]
            for label, h1, h5, build, median, slowest in rows
        ],
        f"{tasks} English tasks over the {len(data['names'])} tools of the realistic API, each tool one "
        "flat list of terms (no field weights, intents or vocabulary on either side); the timing over "
        f"{SIZE:,} documents (the realistic ones repeated, each with a term of its own), top 5. "
        + (
            ""
            if python
            else "bm25s not measured: set BM25S_PYTHON to a virtualenv's python with bm25s."
        ),
    )


if __name__ == "__main__":
    run()  # lib.table prints the table
