"""Pagination and the official MCP Python client: what ``PAGE_SIZE`` costs a real client.

The client (``mcp`` 2.x, ``Client``) checks a tool's ``structuredContent`` against its
``outputSchema``, which it looks up among the tools it has listed; when the called
tool is not there, ``ClientSession.validate_tool_result`` fetches ``tools/list`` again
— page 1 only, without a cursor — before every such call, and when the tool is still
not there it skips the validation. So with a paginated list, a tool beyond page 1
costs a listing per call unless the client walked every page first.

One in-process server (the benchmark site, on a temporary seeded database, behind a
WSGI wrapper that counts each JSON-RPC method's requests and answer bytes) serves the
``gen1000`` group (1,000 tools). For each ``PAGE_SIZE`` and each way a client lists:

* ``first page``: ``client.list_tools()`` once, as most code does;
* ``every page``: ``list_tools(cursor=...)`` until ``nextCursor`` is gone;
* ``no listing``: the calls only;

a fresh client session then calls three tools that sit beyond the first page of 100
(the first list tools from the 151st, 501st and 901st by name). Reported per scenario: ``tools/list`` requests and
bytes, and how many of the three results the client validated against an ``outputSchema``.

Usage (the test virtualenv has the client)::

    PYTHONPATH=. .venv/bin/python -m bench.pagination [handshake|modern]
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from bench import lib

GROUP = "gen1000"
PAGE_SIZES: tuple[int | None, ...] = (None, 100, 500)
CALLED = (150, 500, 900)  # indexes, in name order, of the called tools


class _Counting:
    """WSGI wrapper: requests and answer bytes per JSON-RPC method."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.requests: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()
        self.lock = threading.Lock()

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.bytes.clear()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            method = json.loads(body).get("method", "?") if body else environ["REQUEST_METHOD"]
        except (ValueError, AttributeError):
            method = "?"
        chunks = list(self.app(environ, start_response))
        with self.lock:
            self.requests[method] += 1
            self.bytes[method] += sum(len(chunk) for chunk in chunks)
        return chunks


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _setup() -> None:
    os.environ["BENCH_DATA_DIR"] = tempfile.mkdtemp(prefix="mcp-bridge-pagination-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import contextlib

    with contextlib.redirect_stdout(io.StringIO()):
        from bench import seed

        seed.main()


async def _scenario(url: str, listing: str, names: list[str], mode: str) -> tuple[int, float]:
    """One client session: list as ``listing`` says, call the tools; (validated, seconds)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    start = time.perf_counter()
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Token {lib.TOKEN}"}, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        if listing == "first page":
            await client.list_tools()
        elif listing == "every page":
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                cursor = page.next_cursor
                if not cursor:
                    break
        for name in names:
            result = await client.call_tool(name, {})
            assert not result.is_error, result
        # What the client could validate the results against (mcp.client.session).
        schemas = client.session._tool_output_schemas
        validated = sum(1 for name in names if schemas.get(name) is not None)
    return validated, time.perf_counter() - start


def main() -> None:
    mode = {"handshake": "legacy", "modern": "2026-07-28"}.get(
        sys.argv[1] if len(sys.argv) > 1 else "handshake"
    )
    assert mode is not None, "usage: python -m bench.pagination [handshake|modern]"
    _setup()
    import anyio
    from django.test.utils import override_settings

    from bench.site.wsgi import application
    from mcp_bridge.toolset import registry

    counting = _Counting(application)
    server = make_server(lib.HOST, 0, counting, server_class=_Server, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://{lib.HOST}:{server.server_port}/mcp/{GROUP}/"
    names = [tool.name for tool in registry.get_toolset(GROUP).tools]
    # The first list operation (no arguments needed) at or after each index.
    called = [next(name for name in names[index:] if name.endswith("list")) for index in CALLED]
    rows = []
    try:
        for size in PAGE_SIZES:
            with override_settings(
                MCP_BRIDGE={"SERVER_NAME": "bench", "PAGE_SIZE": size, "DISCOVERY": "direct"}
            ):
                registry.get_toolset(GROUP)  # built before the clock starts
                for listing in ("first page", "every page", "no listing"):
                    counting.reset()
                    validated, seconds = anyio.run(_scenario, url, listing, called, mode)
                    rows.append(
                        (
                            "none (one page)" if size is None else size,
                            listing,
                            counting.requests["tools/list"],
                            f"{counting.bytes['tools/list'] / 1000:,.0f}",
                            counting.requests["tools/call"],
                            f"{validated} of {len(called)}",
                            f"{seconds:.2f}",
                        )
                    )
                    lib.log(f"PAGE_SIZE {size}, {listing}: {rows[-1]}")
    finally:
        server.shutdown()
    lib.table(
        f"The official client ({mode}) calling 3 tools beyond the first 100 of a 1,000-tool group",
        (
            "PAGE_SIZE",
            "client lists",
            "tools/list requests",
            "tools/list kB",
            "tools/call",
            "results validated",
            "s",
        ),
        rows,
    )


if __name__ == "__main__":
    main()
