"""Benchmark 4: throughput of tools/call against REST on the same view.

gunicorn with 2 sync workers; wrk (Debian's package: a C load generator, light enough to
share this 2-core machine with the server, where a Python load tool such as locust would
take a core of its own) keeps 8 connections busy for D seconds, with a Lua script for the
POST body and headers. REST and MCP runs alternate, R rounds each; requests per second
are summed over the rounds.

Target: MCP/REST ≥ 0.9.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench import lib

LUA = """wrk.method = {method}
wrk.body = {body}
wrk.headers["Authorization"] = "Token {token}"
wrk.headers["Accept"] = {accept}
{extra}
"""


def _script(directory: Path, name: str, request: lib.Request) -> Path:
    extra = "\n".join(
        f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}"
        for k, v in request.headers.items()
        if k not in ("Authorization", "Accept")
    )
    path = directory / f"{name}.lua"
    path.write_text(
        LUA.format(
            method=json.dumps(request.method),
            body=json.dumps((request.body or b"").decode()),
            token=lib.TOKEN,
            accept=json.dumps(request.headers["Accept"]),
            extra=extra,
        )
    )
    return path


def _wrk(script: Path, url: str, seconds: int) -> tuple[float, int, int]:
    """(requests/s, requests, non-2xx) of one wrk run: 2 threads, 8 connections."""
    output = subprocess.run(
        [
            "wrk",
            "--threads",
            "2",
            "--connections",
            "8",
            "--duration",
            f"{seconds}s",
            "--timeout",
            "10s",
            "--script",
            str(script),
            url,
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=seconds + 60,
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    total = int(re.search(r"(\d+) requests in", output).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, total, int(bad.group(1)) if bad else 0


def run() -> str:
    if shutil.which("wrk") is None:
        raise RuntimeError("wrk is not installed: `apt-get install wrk` (bench/run does it)")
    rounds, seconds = (1, 3) if lib.quick() else (3, 8)
    rows = []
    with lib.gunicorn("throughput", workers=2) as server, tempfile.TemporaryDirectory() as tmp:
        cases = [
            ("tiny (one row, 3 fields)", "/api/items/3/", "item_detail", {"id": 3}),
            ("realistic (page of 20 rows)", "/api/items/?page=2", "item_list", {"page": 2}),
        ]
        for label, path, tool, arguments in cases:
            rest = lib.rest("rest", server, path)
            mcp = lib.mcp(
                "mcp", server, "/mcp/bench/", "tools/call", {"name": tool, "arguments": arguments}
            )
            rest.verify()
            mcp.verify()
            scripts = {
                "rest": _script(Path(tmp), "rest", rest),
                "mcp": _script(Path(tmp), "mcp", mcp),
            }
            urls = {"rest": server.base + path, "mcp": server.base + "/mcp/bench/"}
            totals = {"rest": [0, 0.0, 0], "mcp": [0, 0.0, 0]}
            lib.log(f"throughput: {label}, {rounds} x {seconds} s each kind")
            _wrk(scripts["rest"], urls["rest"], 2)  # warm-up of both workers
            _wrk(scripts["mcp"], urls["mcp"], 2)
            for round_ in range(rounds):
                for kind in ("rest", "mcp") if round_ % 2 == 0 else ("mcp", "rest"):
                    rate, total, bad = _wrk(scripts[kind], urls[kind], seconds)
                    totals[kind][0] += total
                    totals[kind][1] += rate * seconds
                    totals[kind][2] += bad
            if totals["rest"][2] or totals["mcp"][2]:
                raise RuntimeError(f"throughput {label}: non-2xx answers {totals}")
            rest_rate = totals["rest"][1] / (rounds * seconds)
            mcp_rate = totals["mcp"][1] / (rounds * seconds)
            ratio = mcp_rate / rest_rate
            rows.append(
                [
                    label,
                    f"{rounds} x {seconds} s",
                    totals["rest"][0],
                    totals["mcp"][0],
                    f"{rest_rate:.0f}",
                    f"{mcp_rate:.0f}",
                    f"{ratio:.3f}",
                    lib.verdict(ratio, 0.9, at_most=False),
                ]
            )
    return lib.table(
        "4. Throughput: tools/call vs REST, same view (gunicorn, 2 sync workers, wrk: 2 threads, 8 connections)",
        [
            "view",
            "runs each",
            "REST requests",
            "MCP requests",
            "REST req/s",
            "MCP req/s",
            "MCP/REST",
            "target",
        ],
        rows,
        "wrk and the server share the machine's 2 cores, for both kinds alike.",
    )


if __name__ == "__main__":
    run()
