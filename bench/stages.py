"""Time the bridge's own stages of a ``tools/call``, in process, against REST's rendering.

``PYTHONPATH=. bench/.venv/bin/python -m bench.stages`` (after ``bash bench/run`` has set up
``bench/.venv`` and the database): µs per call of each stage, for the tiny and the realistic
view, with ``timeit``-style loops (no profiler, so no profiler overhead in the figures).
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")

import django

django.setup()

from django.test import RequestFactory
from django.urls import resolve
from rest_framework.renderers import JSONRenderer

from bench import lib
from mcp_bridge.base.encoding import dumps
from mcp_bridge.toolcall import executor
from mcp_bridge.transport import endpoint as transport

N = 2000


def _us(function) -> str:
    function()
    start = time.perf_counter()
    for _ in range(N):
        function()
    return f"{(time.perf_counter() - start) / N * 1e6:.0f}"


def _column(tool, arguments, path, factory, auth) -> list[str]:
    mcp_request = factory.post("/mcp/bench/", "{}", content_type="application/json", **auth)
    match = resolve(path.split("?")[0])
    view_request = factory.get(path, **auth)
    response = match.func(view_request, **match.kwargs)
    data = response.data
    structured = tool.structured_content(data, lib.REVISION)
    validator = tool.output_validator(lib.REVISION)
    result = executor.encoded_result(
        tool, executor.response_result(tool, response, view_request, lib.REVISION), lib.REVISION
    )
    return [
        _us(lambda: executor.argument_errors(tool, arguments)),
        _us(lambda: executor.build_request(tool, arguments, mcp_request)),
        _us(lambda: list(validator.iter_errors(structured))),
        _us(lambda: list(validator.validator.iter_errors(structured))),
        _us(lambda: dumps(data)),
        _us(lambda: dumps({"jsonrpc": "2.0", "id": 1, "result": result})),
        _us(lambda: JSONRenderer().render(data)),
    ]


def main() -> None:
    factory = RequestFactory(HTTP_HOST="127.0.0.1")
    auth = {"HTTP_AUTHORIZATION": f"Token {lib.TOKEN}"}
    toolset = transport.read_toolset(factory.get("/"), "bench", None, "en")
    columns = [
        _column(toolset.by_name[name], arguments, path, factory, auth)
        for name, arguments, path in (
            ("item_detail", {"id": 3}, "/api/items/3/"),
            ("item_list", {"page": 2}, "/api/items/?page=2"),
        )
    ]
    labels = [
        "argument validation (jsonschema-rs answering; no format in the schema)",
        "building the view's request (WSGIRequest + resolve)",
        "output validation (compiled check)",
        "output validation (jsonschema alone, for comparison)",
        "the data as the text block (dumps)",
        "the JSON-RPC answer (structuredContent spliced from the text)",
        "for comparison, REST's one rendering (JSONRenderer)",
    ]
    lib.table(
        f"Stages of a tools/call, in process, µs per call ({N} calls each)",
        ["stage", "tiny", "realistic (20 rows)"],
        [[label, tiny, realistic] for label, tiny, realistic in zip(labels, *columns)],
    )


if __name__ == "__main__":
    main()
