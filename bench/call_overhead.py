"""Benchmark 1: the cost of a ``tools/call`` over the direct REST request to the same view.

gunicorn, one sync worker. N sequential requests of each kind, interleaved (REST, MCP,
REST, MCP... the order alternating per round), the same token and the same data:

* tiny: ``GET /api/items/3/`` vs ``tools/call item_detail {"id": 3}``;
* realistic: ``GET /api/items/?page=2`` (20 rows, their category joined) vs
  ``tools/call item_list {"page": 2}``.

Target: MCP/REST ≤ 1.10 (median).
"""

from bench import lib


def run() -> str:
    n = lib.scaled(1000)
    out = ""
    rows = []
    with lib.gunicorn("call-overhead") as server:
        cases = [
            ("tiny (one row, 3 fields)", "/api/items/3/", "item_detail", {"id": 3}),
            ("realistic (page of 20 rows)", "/api/items/?page=2", "item_list", {"page": 2}),
        ]
        for label, path, tool, arguments in cases:
            lib.log(f"call overhead: {label}, {n} x 2 requests")
            samples = lib.interleaved(
                [
                    lib.rest("rest", server, path),
                    lib.mcp(
                        "mcp",
                        server,
                        "/mcp/bench/",
                        "tools/call",
                        {"name": tool, "arguments": arguments},
                    ),
                ],
                n,
            )
            r, m = samples["rest"], samples["mcp"]
            ratio = lib.median(m) / lib.median(r)
            rows.append(
                [
                    label,
                    len(r),
                    lib.ms(lib.median(r)),
                    lib.ms(lib.median(m)),
                    f"{ratio:.3f}",
                    lib.ms(lib.p95(r)),
                    lib.ms(lib.p95(m)),
                    f"{lib.p95(m) / lib.p95(r):.3f}",
                    lib.verdict(ratio, 1.10),
                ]
            )
    out += lib.table(
        "1. Call overhead: tools/call vs REST, same view (gunicorn, 1 sync worker, sequential)",
        [
            "view",
            "samples each",
            "REST median ms",
            "MCP median ms",
            "MCP/REST median",
            "REST p95 ms",
            "MCP p95 ms",
            "MCP/REST p95",
            "target",
        ],
        rows,
        "Latency is measured by the client: connect, request, whole response (gunicorn's sync "
        "workers close every connection). Interleaved: REST and MCP alternate, order rotating per round.",
    )
    return out


if __name__ == "__main__":
    run()
