"""Resources (docs/resources.md): what a ``resources/read`` costs against the ``tools/call`` it
runs, and how long a ``completion/complete`` takes on a table of 100,000 rows.

``bash bench/run resources`` (or ``python -m bench.resources`` with ``PYTHONPATH`` at the
checkout, after ``bench/seed.py``), ~5 minutes.

1. **Instructions** of one ``resources/read`` of ``drf://bench/api/items/3`` and of one
   ``tools/call`` of ``item_detail`` with ``{"id": 3}``, counted under callgrind as benchmark 5
   counts (:mod:`bench.instructions`: a warm process, its heap frozen, ``(count of 250 - count
   of 50) / 200``). Target: the read ≤ 1.01× the call.
2. **Completion** of the template's ``id`` on a copy of the benchmark database holding 100,000
   items (``BENCH_DATA_DIR`` in a scratch folder, seeded here): warm, median CPU time of 101
   ``completion/complete`` requests through Django's test client (SQLite runs in the process,
   so its work is counted; wall time on a shared host counts other processes' turns), each
   asking for the ids that start with a digit. Target: ≤ 10 ms.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench import instructions, lib

READ_URI = "drf://bench/api/items/3"
TEMPLATE = "drf://bench/api/items/{id}"
KINDS = ("read", "call")
ROWS = 100_000
COMPLETIONS = 101


def _senders() -> dict[str, object]:
    from django.test import Client

    client = Client(HTTP_HOST=lib.HOST)
    headers = {
        "HTTP_AUTHORIZATION": f"Token {lib.TOKEN}",
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": lib.REVISION,
    }
    read_body = lib.mcp_message("resources/read", {"uri": READ_URI})
    call = lib.in_process_senders("tiny")["mcp"]

    def read() -> None:
        response = client.post(
            lib.IN_PROCESS_PATHS["mcp"], read_body, content_type="application/json", **headers
        )
        assert response.status_code == 200 and b'"contents"' in response.content, response.content

    return {"read": read, "call": call}


def _child(kind: str, n: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    instructions.measure(_senders(), kind, n)  # type: ignore[arg-type]


def count() -> dict[str, float]:
    """Instructions of one request of each kind."""
    return lib.per_request(
        lambda kind, n, out_file: lib.callgrind("bench.resources", ["--child", kind, n], out_file),
        KINDS,
        instructions.FEW,
        instructions.MANY,
    )


def _completion_child() -> None:
    """In a process whose ``BENCH_DATA_DIR`` is a scratch folder: seed, add rows up to
    :data:`ROWS`, then time :data:`COMPLETIONS` completions (printed, milliseconds)."""
    import runpy

    runpy.run_module("bench.seed", run_name="__main__")
    from django.test import Client

    from bench.shop.models import Item

    template = Item.objects.first()
    assert template is not None
    have = Item.objects.count()
    Item.objects.bulk_create(
        (
            Item(
                name=f"Item {i}",
                slug=f"item-{i}",
                price=template.price,
                created_at=template.created_at,
                category=template.category,
            )
            for i in range(have, ROWS)
        ),
        batch_size=5_000,
    )
    client = Client(HTTP_HOST=lib.HOST)
    headers = {
        "HTTP_AUTHORIZATION": f"Token {lib.TOKEN}",
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": lib.REVISION,
    }
    times = []
    for i in range(COMPLETIONS + 10):
        body = lib.mcp_message(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": TEMPLATE},
                "argument": {"name": "id", "value": str(i % 9 + 1)},
            },
        )
        # CPU time of this process: the host is shared, and wall time counts the other
        # processes' turns (the database is SQLite, in this process, so its work is counted).
        start = time.process_time()
        response = client.post(
            lib.IN_PROCESS_PATHS["mcp"], body, content_type="application/json", **headers
        )
        elapsed = time.process_time() - start
        assert response.status_code == 200 and b'"hasMore":true' in response.content, (
            response.content
        )
        if i >= 10:  # warm
            times.append(elapsed * 1e3)
    print(f"{statistics.median(times):.2f} {min(times):.2f} {max(times):.2f}")


def complete_times() -> tuple[float, float, float]:
    """Median, fastest and slowest completion on :data:`ROWS` rows, in milliseconds."""
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(
            [sys.executable, "-m", "bench.resources", "--completion"],
            cwd=lib.ROOT,
            env={
                **os.environ,
                "BENCH_DATA_DIR": scratch,
                "DJANGO_SETTINGS_MODULE": "bench.site.settings",
                "PYTHONPATH": str(lib.ROOT),
            },
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    median, fastest, slowest = (float(x) for x in out[-3:])
    return median, fastest, slowest


def run() -> str:
    counted = count()
    ratio = counted["read"] / counted["call"]
    median, fastest, slowest = complete_times()
    return (
        f"resources/read {counted['read'] / 1e3:,.0f}k instructions, tools/call "
        f"{counted['call'] / 1e3:,.0f}k: {ratio:.3f}x ({lib.verdict(ratio, 1.01)} 1.01)\n"
        f"completion/complete on {ROWS:,} rows: median {median:.2f} ms CPU (min {fastest:.2f}, "
        f"max {slowest:.2f}; {lib.verdict(median, 10)} 10 ms)\n"
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1:2] == ["--completion"]:
        _completion_child()
    else:
        print(run(), end="")
