"""Benchmark: the per-caller filter of ``tools/list`` (``FILTER_TOOLS_LIST``) on a big group.

The group ``costly`` has 110 model viewsets of five operations (550 tools) whose permission
class is as costly as a real application's: it builds the view's serializer to find the model
it guards (``view.get_serializer()``), then asks the user's model permissions, in
``has_permission``. The bridge cannot share such a check between tools: each tool is asked on
its own (mcp_bridge.toolcall.visibility).

Measured in process (``mcp_endpoint`` with a ``RequestFactory`` request, no middleware), CPU
time (``time.process_time``), median of N rounds, one token user with the ``view_item``
permission (it sees the reads, not the writes):

* unfiltered: ``FILTER_TOOLS_LIST=False``, the page encoded once (warm);
* filtered, cold: the cache of what callers may see cleared before each request: a caller's
  first request, which runs the checks of what its answer shows (every tool for the whole
  list, which is what every first request cost before the checks were made lazily);
* filtered, warm: the caller's outcome read from the cache (``FILTER_TOOLS_LIST_TIMEOUT``);

for the direct ``tools/list`` in one page and in pages of 100 (the first page), the search-mode
``tools/list`` (the pinned tools and the proxies of the levels the caller may use), and a
``search_tools`` meta-tool call.

Run alone: ``PYTHONPATH=. python -m bench.filtering`` (a few seconds; its own SQLite file in a
temporary directory). Targets: warm filtered <= 2x unfiltered; a first page of 100 <= 20 %
of the whole list's checks, a first ``search_tools`` <= 0.3 s.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import tempfile
import time

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "15"))
#: ``BENCH_STACK=1``: through Django's handler and the site's middleware (the test client),
#: rather than the endpoint view alone.
STACK = os.environ.get("BENCH_STACK") == "1"
VIEWSETS = 110


def _setup() -> None:
    os.environ.setdefault("BENCH_DATA_DIR", tempfile.mkdtemp(prefix="mcp-bench-filter-"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.site.settings"
    import django
    from django.conf import settings

    django.setup()
    settings.ROOT_URLCONF = "bench.filtering_urls"
    from django.core.management import call_command

    call_command("migrate", verbosity=0, run_syncdb=True)


def _request(body: dict, token: str):
    from django.test import RequestFactory

    return RequestFactory().post(
        "/mcp/costly/",
        json.dumps(body),
        content_type="application/json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
        HTTP_AUTHORIZATION=f"Token {token}",
    )


def _cpu(body: dict, token: str, clear: bool) -> float:
    from django.core.cache import caches
    from django.test import Client

    from mcp_bridge.transport.endpoint import mcp_endpoint

    if clear:
        caches["default"].clear()
    gc.collect()  # each sample starts with no garbage left by the one before (as bench.listing)
    if STACK:
        client = Client(SERVER_NAME="localhost")
        start = time.process_time()
        response = client.post(
            "/mcp/costly/",
            json.dumps(body),
            content_type="application/json",
            HTTP_ACCEPT="application/json, text/event-stream",
            HTTP_MCP_PROTOCOL_VERSION="2025-11-25",
            HTTP_AUTHORIZATION=f"Token {token}",
        )
    else:
        request = _request(body, token)
        start = time.process_time()
        response = mcp_endpoint(request, "costly")
    content = b"".join(response) if response.streaming else response.content
    elapsed = time.process_time() - start
    assert response.status_code == 200 and b'"error"' not in content[:200], content[:300]
    return elapsed


def _median(body: dict, token: str, clear: bool) -> float:
    _cpu(body, token, clear)  # the first request of a setting builds its pages
    return statistics.median(_cpu(body, token, clear) for _ in range(ROUNDS))


def main() -> int:
    _setup()
    from django.contrib.auth.models import Permission, User
    from django.test import override_settings
    from rest_framework.authtoken.models import Token

    from mcp_bridge.toolset.registry import clear_cache, get_toolset

    user = User.objects.create_user("bench-filter")
    user.user_permissions.add(Permission.objects.get(codename="view_item"))
    token = Token.objects.create(user=user).key
    tools_list = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    search = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "search_tools", "arguments": {"query": "resource 7 list"}},
    }
    base = {"SERVER_NAME": "bench", "BUILD_STORE": None}
    rows = []
    for label, body, mode, page_size in (
        ("tools/list", tools_list, "direct", None),
        ("tools/list, page", tools_list, "direct", 100),
        ("tools/list", tools_list, "search", None),
        ("search_tools", search, "search", None),
    ):
        settings = {**base, "DISCOVERY": mode, "PAGE_SIZE": page_size}
        with override_settings(MCP_BRIDGE={**settings, "FILTER_TOOLS_LIST": False}):
            clear_cache()
            tools = len(get_toolset("costly").tools)
            unfiltered = _median(body, token, clear=False)
        with override_settings(MCP_BRIDGE=settings):
            clear_cache()
            cold = _median(body, token, clear=True)
            warm = _median(body, token, clear=False)
        rows.append((f"{label} ({mode})", tools, unfiltered, cold, warm))
    # What a caller's first answer cost when every check ran up front: the whole list's.
    everything = rows[0][3]
    print(
        f"{'request':<26}{'tools':>6}{'unfiltered':>12}{'cold':>10}{'cold/all':>10}"
        f"{'warm':>10}{'warm/unf.':>11}"
    )
    for label, tools, unfiltered, cold, warm in rows:
        print(
            f"{label:<26}{tools:>6}{unfiltered * 1000:>10.2f}ms{cold * 1000:>8.1f}ms"
            f"{cold / everything:>10.2f}{warm * 1000:>8.2f}ms{warm / unfiltered:>10.2f}x"
        )
    where = "handler and middleware" if STACK else "the endpoint view alone"
    print(
        f"(CPU time through {where}, median of {ROUNDS}; cold: the caller's first request, "
        "its outcome not cached; cold/all: against the whole list's, which asks every check)"
    )
    return 0 if all(warm <= 2 * unfiltered for *_, unfiltered, _, warm in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
