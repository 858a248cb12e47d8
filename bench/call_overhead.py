"""Benchmark 1: the cost of a ``tools/call`` over the direct REST request to the same view.

N sequential requests of each kind, the same token and the same data:

* tiny: ``GET /api/items/3/`` vs ``tools/call item_detail {"id": 3}``;
* realistic: ``GET /api/items/?page=2`` (20 rows, their category joined) vs
  ``tools/call item_list {"page": 2}``.

Served twice: by gunicorn (one sync worker, WSGI) and by uvicorn (one process, ASGI, which
runs the synchronous views in a thread: the path an async deployment takes). Latency is
measured interleaved (REST, MCP, REST, MCP... the order alternating per round). Under ASGI
the server's CPU time is also read from ``/proc`` around a block of each kind (the
requests of a block run one after the other, so its CPU is theirs alone).

Target: MCP/REST ≤ 1.10 (median latency, both servers; server CPU under ASGI).
"""

from bench import lib

CASES = [
    ("tiny (one row, 3 fields)", "/api/items/3/", "item_detail", {"id": 3}),
    ("realistic (page of 20 rows)", "/api/items/?page=2", "item_list", {"page": 2}),
]
TARGET = 1.10


def _requests(server: lib.Server, path: str, tool: str, arguments: dict) -> list[lib.Request]:
    return [
        lib.rest("rest", server, path),
        lib.mcp("mcp", server, "/mcp/bench/", "tools/call", {"name": tool, "arguments": arguments}),
    ]


def _cpu_per_request(server: lib.Server, request: lib.Request, n: int) -> float:
    start = lib.cpu_seconds(server)
    for _ in range(n):
        request.send()
    return (lib.cpu_seconds(server) - start) / n


def run() -> str:
    n = lib.scaled(1000)
    rows = []
    for serve, label_server in ((lib.gunicorn, "gunicorn (WSGI)"), (lib.uvicorn, "uvicorn (ASGI)")):
        with serve("call-overhead") as server:
            for label, path, tool, arguments in CASES:
                lib.log(f"call overhead: {label_server}, {label}, {n} x 2 requests")
                requests = _requests(server, path, tool, arguments)
                samples = lib.interleaved(requests, n)
                r, m = samples["rest"], samples["mcp"]
                ratio = lib.median(m) / lib.median(r)
                cpu = "-"
                if serve is lib.uvicorn:
                    rest_cpu, mcp_cpu = (_cpu_per_request(server, q, n) for q in requests)
                    cpu = f"{mcp_cpu / rest_cpu:.3f}"
                rows.append(
                    [
                        label_server,
                        label,
                        len(r),
                        lib.ms(lib.median(r)),
                        lib.ms(lib.median(m)),
                        f"{ratio:.3f}",
                        f"{lib.p95(m) / lib.p95(r):.3f}",
                        cpu,
                        lib.verdict(ratio, TARGET),
                    ]
                )
    return lib.table(
        "1. Call overhead: tools/call vs REST, same view (one worker, sequential)",
        [
            "server",
            "view",
            "samples each",
            "REST median ms",
            "MCP median ms",
            "MCP/REST median",
            "MCP/REST p95",
            "MCP/REST server CPU",
            "target",
        ],
        rows,
        "Latency is measured by the client: connect, request, whole response (a new connection "
        "each time). Interleaved: REST and MCP alternate, order rotating per round. Server CPU: "
        "user + system time of the serving process per request, over a block of each kind.",
    )


if __name__ == "__main__":
    run()
