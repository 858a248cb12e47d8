"""Benchmark 3: listing generated APIs of 10, 100 and 1,000 operations.

* Cold build, in process: the first ``tools/list`` of a group after the bridge's caches are
  cleared (drf-spectacular's generation, OpenRPC methods, tools, their checks, the answer),
  against drf-spectacular's own ``SchemaGenerator(patterns=...).get_schema()`` for the same
  endpoints. Interleaved, R rounds each.
* Warm ``tools/list`` over HTTP (gunicorn, one sync worker): N sequential requests for the
  group's first page, interleaved with the same POST to a plain Django view answering the
  very same bytes, serialised once (``/prebytes/<group>/``).
* Memory held per cached group: ``tracemalloc``'s traced size with the group cached, minus
  the size once the bridge's caches are cleared, in a fresh process.

Targets: cold ≤ 1.3× drf-spectacular; warm ≤ 1.2× the pre-serialised bytes, also for a list
filtered by the caller's permissions (``genf1000``: half of its tools are staff-only).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time

from bench import lib

SIZES = (10, 100, 1000)  # bench.shop.generated.SIZES, which needs Django set up


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()


def _cold_tools_list(group: str, keep_url_index: bool = False) -> tuple[float, bytes]:
    """Clear the bridge's caches, then time one tools/list (in process, no middleware).

    ``keep_url_index``: the URLconf's index (one walk of its URL patterns, shared by every
    group and built once per process) is rebuilt before the clock starts, so that the time
    is the group's own build; otherwise the walk is timed too, as in the first request
    that a process answers.

    Returns:
        ``(seconds, response body)``.
    """
    from django.test import RequestFactory

    from bench.site.urls import MCP_HEADERS, TOOLS_LIST
    from mcp_bridge.build import translation
    from mcp_bridge.toolset import registry
    from mcp_bridge.transport.endpoint import mcp_endpoint

    registry.clear_cache()
    translation.clear_cache()
    if keep_url_index:
        registry.get_url_index()
    request = RequestFactory().post(
        f"/mcp/{group}/", json.dumps(TOOLS_LIST), content_type="application/json", **MCP_HEADERS
    )
    gc.collect()  # every measure starts with no garbage left by the one before (as _timed does)
    start = time.perf_counter()
    response = mcp_endpoint(request, group)
    elapsed = time.perf_counter() - start
    assert response.status_code == 200, response.content[:300]
    return elapsed, response.content


def _timed(function) -> float:
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _all_operations() -> int:
    """The operations of every group of the bench URLconf (all of its API)."""
    from mcp_bridge.toolset import registry

    return sum(len(endpoints) for endpoints in registry.get_url_index().endpoints.values())


def _spectacular(size: int) -> dict:
    from drf_spectacular.generators import SchemaGenerator

    from bench.shop.generated import PATTERNS

    return SchemaGenerator(patterns=PATTERNS[size]).get_schema(request=None, public=True)


def cold_rows() -> list[list[str]]:
    _setup()
    rounds = {10: lib.scaled(30, 3), 100: lib.scaled(10, 2), 1000: lib.scaled(4, 1)}
    rows = []
    for size in SIZES:
        group = f"gen{size}"
        _, body = _cold_tools_list(group)  # warm-up: imports, drf-spectacular's own lru caches
        tools = len(json.loads(body)["result"]["tools"])
        operations = sum(len(operations) for operations in _spectacular(size)["paths"].values())
        samples: dict[str, list[float]] = {"group": [], "first": [], "spectacular": []}
        lib.log(f"listing, cold: {group}, {rounds[size]} rounds")
        for round_ in range(rounds[size]):
            measures = [
                ("group", lambda group=group: _cold_tools_list(group, keep_url_index=True)[0]),
                ("first", lambda group=group: _cold_tools_list(group)[0]),
                ("spectacular", lambda size=size: _timed(lambda: _spectacular(size))),
            ]
            for label, measure in measures if round_ % 2 == 0 else measures[::-1]:
                samples[label].append(measure())
        spectacular = lib.median(samples["spectacular"])
        ratio = lib.median(samples["group"]) / spectacular
        first_ratio = lib.median(samples["first"]) / spectacular
        rows.append(
            [
                size,
                operations,
                tools,
                len(samples["group"]),
                lib.ms(spectacular),
                lib.ms(lib.median(samples["group"])),
                f"{ratio:.3f}",
                lib.verdict(ratio, 1.3),
                lib.ms(lib.median(samples["first"])),
                f"{first_ratio:.3f}",
            ]
        )
    return rows


#: The filtered case: 1,000 operations, half of them staff-only, listed for a user who is not
#: staff (bench.shop.generated.FILTERED_SIZE).
FILTERED = (1000, "genf1000")


def warm_rows() -> list[list[str]]:
    n = lib.scaled(300)
    rows = []
    cases = [(size, f"gen{size}") for size in SIZES] + [FILTERED]
    with lib.gunicorn("listing") as server:
        for size, group in cases:
            lib.log(f"listing, warm: {group}, {n} x 2 requests")
            listing = lib.mcp("mcp", server, f"/mcp/{group}/", "tools/list", {})
            # The same request bytes to both: the plain view ignores them.
            plain = lib.Request(
                "plain", server, "POST", f"/prebytes/{group}/", listing.body, dict(listing.headers)
            )
            # The same bytes after DRF authenticates the caller: a list that depends on the
            # caller cannot be answered without knowing who it is.
            known = lib.Request(
                "known",
                server,
                "POST",
                f"/prebytes-authenticated/{group}/",
                listing.body,
                dict(listing.headers),
            )
            samples = lib.interleaved([listing, plain, known], n)
            _, _, body = listing.send()
            _, _, same = plain.send()
            assert body == same, f"{group}: the plain view's bytes differ from tools/list"
            m, p, k = samples["mcp"], samples["plain"], samples["known"]
            ratio = lib.median(m) / lib.median(p)
            rows.append(
                [
                    f"{size}, filtered" if group == FILTERED[1] else size,
                    len(json.loads(body)["result"]["tools"]),
                    f"{len(body) / 1024:.0f}",
                    len(m),
                    lib.ms(lib.median(p)),
                    lib.ms(lib.median(m)),
                    f"{ratio:.3f}",
                    f"{lib.p95(m) / lib.p95(p):.3f}",
                    lib.verdict(ratio, 1.2),
                    lib.ms(lib.median(k)),
                    f"{lib.median(m) / lib.median(k):.3f}",
                ]
            )
    return rows


def memory_rows() -> list[list[str]]:
    """In a fresh process (``python -m bench.listing memory``): tracemalloc's numbers per group."""
    output = subprocess.run(
        [sys.executable, "-m", "bench.listing", "memory"],
        check=True,
        capture_output=True,
        text=True,
        cwd=lib.ROOT,
        env={**os.environ, "PYTHONPATH": str(lib.ROOT)},
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def _measure_memory() -> None:
    import gc
    import tracemalloc

    _setup()
    from mcp_bridge.build import translation
    from mcp_bridge.toolset import registry

    _cold_tools_list("gen10")  # imports and drf-spectacular's lru caches, outside the figures
    rows = []
    tracemalloc.start()
    for size in SIZES:
        group = f"gen{size}"
        # The URLconf's index is shared by every group: kept outside the figures.
        registry.clear_cache()
        translation.clear_cache()
        registry.get_url_index()
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        _, body = _cold_tools_list(group, keep_url_index=True)  # only this group is cached now
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        registry.clear_cache()
        translation.clear_cache()
        registry.get_url_index()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tools = len(json.loads(body)["result"]["tools"])
        kib = (held - after) / 1024
        rows.append(
            [size, tools, f"{kib:.0f}", f"{kib / size:.1f}", f"{(held - before) / 1024:.0f}"]
        )
    print(json.dumps(rows))


def run() -> str:
    out = lib.table(
        "3a. Listing, cold: first tools/list of a group vs drf-spectacular's get_schema, same endpoints (in process)",
        [
            "operations",
            "in the schema",
            "tools",
            "rounds each",
            "spectacular ms",
            "bridge cold ms",
            "bridge/spectacular",
            "target",
            "incl. URLconf walk ms",
            "incl. walk/spectacular",
        ],
        cold_rows(),
        "The bridge's cold figure includes drf-spectacular's generation for the group, which it runs itself, and every "
        "later step (OpenRPC methods, tools, schema checks, the translated copy, the encoded answer). 'incl. URLconf "
        "walk': the same with the URLconf's index rebuilt too, as in the first request a process answers (one walk "
        f"of all {_all_operations()} operations of the bench URLconf, shared by every group).",
    )
    out += lib.table(
        "3b. Listing, warm: tools/list vs a plain view answering the same pre-serialised bytes (gunicorn, 1 sync worker)",
        [
            "operations",
            "tools on page 1",
            "page KiB",
            "samples each",
            "plain ms",
            "tools/list ms",
            "median ratio",
            "p95 ratio",
            "target",
            "plain + DRF authentication ms",
            "ratio to it",
        ],
        warm_rows(),
        "The first page (PAGE_SIZE 100), as a client's first tools/list gets it, for the bench user (token "
        "authentication), whose view-level checks are evaluated on every tools/list (FILTER_TOOLS_LIST). "
        "'filtered': genf1000, whose staff-only half that user does not see; the plain view answers the "
        "filtered page's bytes. 'plain + DRF authentication': the same bytes after DRF's authentication "
        "classes have identified the caller (one token lookup), what any per-caller list must spend.",
    )
    out += lib.table(
        "3c. Memory held per cached group (tracemalloc, fresh process)",
        [
            "operations",
            "tools",
            "held KiB",
            "KiB per operation",
            "traced growth during the build KiB",
        ],
        memory_rows(),
        "'held' is what clearing the group's tool set frees: its tools, OpenRPC document, per-language copy and encoded "
        "pages (the URLconf's index, shared by every group, is not counted).",
    )
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["memory"]:
        _measure_memory()
    else:
        run()
