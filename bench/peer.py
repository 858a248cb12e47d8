"""Benchmark 2: mcp_bridge against django-mcp-server publishing the same views.

Two gunicorn servers (one sync worker each), one per library, each in its own virtualenv,
on the same database, with the same token. N sequential ``tools/call`` of each server,
interleaved, and the REST request to the same view on the bridge's server for scale:

* tiny: ``FirstItemView`` (one row, 3 fields);
* realistic: ``TopItemsView`` (20 rows with their category).

Both are unpaginated ``ListAPIView`` subclasses with no arguments, because that is the
kind of DRF view django-mcp-server publishes for reading (``drf_publish_list_mcp_tool``).
Target: mcp_bridge/peer < 1.
"""

from bench import lib


def run() -> str:
    n = lib.scaled(500)
    rows = []
    with lib.gunicorn("bridge-peer-cmp") as bridge, lib.gunicorn("peer", peer=True) as peer:
        cases = [
            ("tiny (one row, 3 fields)", "/api/first-item/", "first_item"),
            ("realistic (20 rows)", "/api/top-items/", "top_items"),
        ]
        for label, path, tool in cases:
            lib.log(f"peer comparison: {label}, {n} x 3 requests")
            call = {"name": tool, "arguments": {}}
            samples = lib.interleaved(
                [
                    lib.mcp("bridge", bridge, "/mcp/bench/", "tools/call", call),
                    lib.mcp("peer", peer, "/mcp/", "tools/call", call, revision=lib.PEER_REVISION),
                    lib.rest("rest", bridge, path),
                ],
                n,
            )
            b, p, r = samples["bridge"], samples["peer"], samples["rest"]
            ratio = lib.median(b) / lib.median(p)
            rows.append(
                [
                    label,
                    len(b),
                    lib.ms(lib.median(b)),
                    lib.ms(lib.median(p)),
                    lib.ms(lib.median(r)),
                    f"{ratio:.3f}",
                    f"{lib.p95(b) / lib.p95(p):.3f}",
                    f"{lib.median(b) / lib.median(r):.3f}",
                    f"{lib.median(p) / lib.median(r):.3f}",
                    lib.verdict(ratio, 1.0),
                ]
            )
    return lib.table(
        "2. Peer comparison: mcp_bridge vs django-mcp-server 0.5.7, same views (gunicorn, 1 sync worker each)",
        [
            "view",
            "samples each",
            "bridge median ms",
            "peer median ms",
            "REST median ms",
            "bridge/peer median",
            "bridge/peer p95",
            "bridge/REST",
            "peer/REST",
            "target",
        ],
        rows,
        "Both servers stateless and token-authenticated. The peer answers 2025-06-18 (its SDK's newest); "
        "the bridge 2025-11-25, with structuredContent and output validation, which the peer does not do.",
    )


if __name__ == "__main__":
    run()
