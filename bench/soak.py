"""Soak: the demo under gunicorn for N minutes at concurrency C, watching latency and memory.

Not part of CI (it takes minutes and loads the machine): ``bash bench/soak --minutes 10
--concurrency 4``. The demo project (``demo_project``, ``DEBUG`` off, its own SQLite
database in a temporary directory, demo data loaded; ``bench.site.settings_soak``) runs under gunicorn with 2 sync
workers on 127.0.0.1. C client threads send, on a new connection each (gunicorn's sync
workers close every one), a fixed mix over all the demo's groups and both protocol eras:

* ``tools/list`` of a group (20 %);
* reads (55 %): ``products_list`` (search, page), ``products_retrieve`` (known and
  awkward slugs), ``products_search``, ``categories_list``, ``tags_list``,
  ``orders_list``, ``shop_stats``;
* writes (20 %): ``orders_create`` (then ``orders_cancel`` of an order it created),
  ``products_partial_update``, ``products_create`` then ``products_destroy``;
* bad input (5 %): an unknown tool, wrong arguments, deep nesting, a batch too large.

Every window (``--window`` seconds) prints the requests, the failures (a transport error, an
HTTP 5xx, a malformed JSON-RPC answer, or a tool result with a 5xx code), the expected client
errors (4xx, throttled orders), p50/p95/p99 latency, and each worker's RSS. The report ends
with each worker's RSS at start (booted, before any request), after warm-up (``--warmup``
seconds) and at the end, and the growth after warm-up.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
GROUPS = ("catalog", "orders", "backoffice")


# --- the server ----------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _manage(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout


def _children(pid: int) -> list[int]:
    """The worker processes of the gunicorn master ``pid`` (Linux /proc)."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after the last ")".
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            children.append(int(entry.name))
    return sorted(children)


def rss_kib(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) if match else None


@dataclass
class Server:
    port: int
    process: subprocess.Popen
    tokens: dict[str, str]

    def workers(self) -> list[int]:
        return _children(self.process.pid)


def start_server(
    directory: Path, workers: int, application: str = "demo_project.wsgi:application"
) -> Server:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.site.settings_soak",
        "DJANGO_DEBUG": "0",
        "DEMO_DB_PATH": str(directory / "soak.sqlite3"),
        "PYTHONPATH": str(ROOT),
    }
    _manage(env, "migrate", "--noinput")
    loaded = _manage(env, "load_demo_data")
    tokens = dict(re.findall(r"^\s+(\w+) \(.*'Authorization: Token (\w+)'", loaded, re.MULTILINE))
    port = _free_port()
    log = open(directory / "gunicorn.log", "wb")  # noqa: SIM115 - open for the server's lifetime
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            str(workers),
            "--worker-class",
            "sync",
            "--bind",
            f"{HOST}:{port}",
            "--backlog",
            "64",
            "--timeout",
            "60",
            "--log-level",
            "warning",
            application,
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited; see {log.name}")
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                if len(_children(process.pid)) >= workers:
                    break
        except OSError:
            pass
        time.sleep(0.1)
    else:
        raise RuntimeError("gunicorn did not start")
    time.sleep(1)  # the workers import the application after they fork
    return Server(port, process, tokens)


# --- the mix -------------------------------------------------------------------------------


@dataclass
class Outcome:
    end: float
    seconds: float
    kind: str  # "ok", "client" (an expected 4xx), or "failure"
    label: str
    detail: str = ""


@dataclass
class State:
    """What the clients learned from the server: ids and slugs to read and write."""

    slugs: list[str]
    categories: list[int]
    products: list[int]
    orders: list[int] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    counter: itertools.count = field(default_factory=itertools.count)


def _post(server: Server, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection(HOST, server.port, timeout=60)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _message(
    method: str, params: dict[str, Any], revision: str, request_id: int
) -> tuple[bytes, dict[str, str]]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": revision,
    }
    if revision == MODERN:
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        }
        headers["Mcp-Method"] = method
        if method == "tools/call":
            headers["Mcp-Name"] = params["name"]
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(message).encode(), headers


class Client:
    def __init__(self, server: Server, state: State, seed: int) -> None:
        self.server = server
        self.state = state
        self.random = random.Random(seed)
        self.ids = itertools.count(1)

    def rpc(
        self,
        group: str,
        method: str,
        params: dict[str, Any],
        user: str = "alice",
        body: bytes | None = None,
    ) -> tuple[int, Any]:
        revision = self.random.choice((HANDSHAKE, MODERN))
        request_id = next(self.ids)
        encoded, headers = _message(method, params, revision, request_id)
        headers["Authorization"] = f"Token {self.server.tokens[user]}"
        status, content = _post(self.server, f"/mcp/{group}/", body or encoded, headers)
        answer = json.loads(content) if content else None
        return status, answer

    def call(
        self, group: str, name: str, arguments: dict[str, Any], user: str = "alice"
    ) -> tuple[int, Any]:
        return self.rpc(group, "tools/call", {"name": name, "arguments": arguments}, user)

    def one(self) -> tuple[str, int, Any, bool]:
        """Send one request of the mix: (label, HTTP status, answer, whether an error is expected)."""
        r = self.random.random()
        s = self.state
        if r < 0.20:
            group = self.random.choice(GROUPS)
            return f"tools/list {group}", *self.rpc(group, "tools/list", {}), False
        if r < 0.75:
            choice = self.random.randrange(8)
            if choice == 0:
                args = {
                    "page": self.random.choice([1, None]),
                    "search": self.random.choice([None, "a", "café"]),
                }
                return "products_list", *self.call("catalog", "products_list", args), False
            if choice in (1, 2):
                slug = self.random.choice(s.slugs + ["a b", "café", "100%", "missing"])
                return (
                    "products_retrieve",
                    *self.call("catalog", "products_retrieve", {"slug": slug}),
                    slug not in s.slugs,
                )
            if choice == 3:
                return (
                    "products_search",
                    *self.call(
                        "catalog",
                        "products_search",
                        {"q": self.random.choice(["a", "e", "zz"]), "in_stock": True},
                    ),
                    False,
                )
            if choice == 4:
                return "categories_list", *self.call("catalog", "categories_list", {}), False
            if choice == 5:
                return "tags_list", *self.call("catalog", "tags_list", {}), False
            if choice == 6:
                return "orders_list", *self.call("orders", "orders_list", {"page": 1}), False
            return "shop_stats", *self.call("backoffice", "shop_stats", {}), False
        if r < 0.95:
            choice = self.random.randrange(4)
            if choice == 0:
                product = self.random.choice(s.products)
                status, answer = self.call(
                    "orders",
                    "orders_create",
                    {"items": [{"product": product, "quantity": 1}], "note": "soak"},
                    user="bob",
                )
                created = _structured(answer)
                if isinstance(created, dict) and isinstance(created.get("id"), int):
                    with s.lock:
                        s.orders.append(created["id"])
                return (
                    "orders_create",
                    status,
                    answer,
                    True,
                )  # throttled at 30/min: a 429 is expected
            if choice == 1:
                with s.lock:
                    order = s.orders.pop() if s.orders else 1
                return (
                    "orders_cancel",
                    *self.call("orders", "orders_cancel", {"id": order}, user="bob"),
                    True,
                )
            if choice == 2:
                slug = self.random.choice(s.slugs)
                return (
                    "products_partial_update",
                    *self.call(
                        "backoffice",
                        "products_partial_update",
                        {"slug": slug, "stock": self.random.randrange(5, 50)},
                    ),
                    False,
                )
            with s.lock:
                pending = s.created.pop() if s.created and self.random.random() < 0.5 else None
            if pending is not None:
                return (
                    "products_destroy",
                    *self.call("backoffice", "products_destroy", {"slug": pending}),
                    False,
                )
            slug = f"soak-{os.getpid()}-{next(s.counter)}"
            status, answer = self.call(
                "backoffice",
                "products_create",
                {
                    "name": f"Soak {slug}",
                    "slug": slug,
                    "price": "9.90",
                    "stock": 3,
                    "category": self.random.choice(s.categories),
                },
            )
            if _is_success(answer):
                with s.lock:
                    s.created.append(slug)
            return "products_create", status, answer, False
        choice = self.random.randrange(4)
        if choice == 0:
            return "bad: unknown tool", *self.call("catalog", "no_such_tool", {}), True
        if choice == 1:
            return (
                "bad: arguments",
                *self.call("catalog", "products_retrieve", {"slug": 5, "x": [1] * 50}),
                True,
            )
        if choice == 2:
            depth = self.random.choice([100, 5_000])
            body = (
                b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":'
                + b"[" * depth
                + b"]" * depth
                + b"}}"
            )
            return "bad: deep", *self.rpc("catalog", "tools/list", {}, body=body), True
        ping = {"jsonrpc": "2.0", "method": "ping"}
        batch = json.dumps([{**ping, "id": i} for i in range(60)]).encode()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "MCP-Protocol-Version": "2025-03-26",
        }
        status, content = _post(self.server, "/mcp/catalog/", batch, headers)
        return "bad: batch", status, json.loads(content), True


def _structured(answer: Any) -> Any:
    """The view's data: the text block holds it as JSON in both eras."""
    try:
        return json.loads(answer["result"]["content"][0]["text"])
    except (TypeError, KeyError, IndexError, ValueError):
        return None


def _is_success(answer: Any) -> bool:
    return (
        isinstance(answer, dict)
        and isinstance(answer.get("result"), dict)
        and answer["result"].get("isError") is False
    )


def classify(status: int, answer: Any, expected_error: bool) -> tuple[str, str]:
    """("ok" | "client" | "failure", detail)."""
    if status >= 500:
        return "failure", f"HTTP {status}"
    if status == 202:
        return "ok", ""
    answers = answer if isinstance(answer, list) else [answer]
    for one in answers:
        if (
            not isinstance(one, dict)
            or one.get("jsonrpc") != "2.0"
            or (("result" in one) == ("error" in one))
        ):
            return "failure", f"malformed answer: {str(answer)[:200]}"
    if isinstance(answer, dict) and "error" in answer:
        return (
            ("client", f"JSON-RPC {answer['error']['code']}")
            if expected_error
            else ("failure", f"unexpected JSON-RPC error {answer['error']}")
        )
    if isinstance(answer, dict) and answer["result"].get("isError"):
        code = json.loads(answer["result"]["content"][0]["text"]).get("code")
        if isinstance(code, int) and code >= 500:
            return "failure", f"tool error {code}"
        return "client", f"tool error {code}"
    return "ok", ""


# --- the run -------------------------------------------------------------------------------


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def learn(server: Server) -> State:
    client = Client(server, State([], [], []), 0)
    listed = _structured(client.call("catalog", "products_list", {"page": 1})[1])
    rows = listed.get("results", listed) if isinstance(listed, dict) else listed
    categories = _structured(client.call("catalog", "categories_list", {})[1]) or []
    slugs = [row["slug"] for row in rows]
    return State(
        slugs=slugs, products=[row["id"] for row in rows], categories=[c["id"] for c in categories]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--window", type=float, default=60, help="seconds per reported window")
    parser.add_argument(
        "--warmup", type=float, default=60, help="seconds before the 'after warm-up' RSS"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / ".out" / "soak.md")
    parser.add_argument(
        "--application",
        default="demo_project.wsgi:application",
        help="the WSGI application gunicorn serves (e.g. one wrapped with tracemalloc)",
    )
    options = parser.parse_args(argv)

    outcomes: list[Outcome] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="mcp-soak-") as tmp:
        server = start_server(Path(tmp), options.workers, options.application)
        try:
            workers = server.workers()
            rss_start = {pid: rss_kib(pid) for pid in workers}
            state = learn(server)
            start = time.monotonic()
            deadline = start + options.minutes * 60
            stop = threading.Event()

            def run(seed: int) -> None:
                client = Client(server, state, seed)
                while not stop.is_set() and time.monotonic() < deadline:
                    began = time.monotonic()
                    try:
                        label, status, answer, expected = client.one()
                        kind, detail = classify(status, answer, expected)
                    except Exception as exc:  # noqa: BLE001 - a transport failure is a result here
                        label, kind, detail = "?", "failure", f"{type(exc).__name__}: {exc}"
                    ended = time.monotonic()
                    with lock:
                        outcomes.append(Outcome(ended - start, ended - began, kind, label, detail))

            threads = [
                threading.Thread(target=run, args=(seed,), daemon=True)
                for seed in range(options.concurrency)
            ]
            for thread in threads:
                thread.start()
            lines = [
                (
                    f"# Soak: {options.minutes:g} min, concurrency {options.concurrency}, gunicorn {options.workers} "
                    f"sync workers, demo project (DEBUG off), {time.strftime('%Y-%m-%d %H:%M:%S')}"
                ),
                "",
                "| window (s) | requests | failures | client errors | p50 ms | p95 ms | p99 ms | RSS per worker (MiB) |",
                "| --- | --- | --- | --- | --- | --- | --- | --- |",
            ]
            print("\n".join(lines), flush=True)
            rss_warm: dict[int, int | None] = {}
            window_end = options.window
            while any(thread.is_alive() for thread in threads):
                time.sleep(0.5)
                elapsed = time.monotonic() - start
                if not rss_warm and elapsed >= options.warmup:
                    rss_warm = {pid: rss_kib(pid) for pid in server.workers()}
                if elapsed >= window_end or not any(thread.is_alive() for thread in threads):
                    with lock:
                        window = [
                            o for o in outcomes if window_end - options.window <= o.end < window_end
                        ]
                    seconds = [o.seconds * 1000 for o in window]
                    rss = ", ".join(f"{(rss_kib(pid) or 0) / 1024:.1f}" for pid in server.workers())
                    line = (
                        f"| {window_end - options.window:.0f}–{window_end:.0f} | {len(window)} | "
                        f"{sum(o.kind == 'failure' for o in window)} | {sum(o.kind == 'client' for o in window)} | "
                        f"{_percentile(seconds, 0.5):.1f} | {_percentile(seconds, 0.95):.1f} | "
                        f"{_percentile(seconds, 0.99):.1f} | {rss} |"
                    )
                    lines.append(line)
                    print(line, flush=True)
                    window_end += options.window
            stop.set()
            workers_end = server.workers()
            rss_end = {pid: rss_kib(pid) for pid in workers_end}
        finally:
            server.process.terminate()
            try:
                server.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.process.kill()
            options.out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(Path(tmp) / "gunicorn.log", options.out.with_suffix(".gunicorn.log"))

    failures = [o for o in outcomes if o.kind == "failure"]
    seconds = [o.seconds * 1000 for o in outcomes]
    summary = len(lines)
    lines += [
        "",
        (
            f"{len(outcomes)} requests, {len(failures)} failures, "
            f"{sum(o.kind == 'client' for o in outcomes)} expected client errors; latency p50 "
            f"{statistics.median(seconds):.1f} ms, p95 {_percentile(seconds, 0.95):.1f} ms, p99 "
            f"{_percentile(seconds, 0.99):.1f} ms."
        ),
        "",
    ]
    for kind, title in (("failure", "Failures"), ("client", "Expected client errors")):
        counts: dict[str, int] = {}
        for outcome in outcomes:
            if outcome.kind == kind:
                counts[f"{outcome.label}: {outcome.detail}"] = (
                    counts.get(f"{outcome.label}: {outcome.detail}", 0) + 1
                )
        if counts:
            lines += [
                f"{title}:",
                *(f"- {n} × {text}" for text, n in sorted(counts.items(), key=lambda kv: -kv[1])),
                "",
            ]
    lines += [
        "| worker | RSS at start (MiB) | after warm-up | at the end | growth after warm-up |",
        "| --- | --- | --- | --- | --- |",
    ]
    for pid in sorted(set(rss_start) | set(rss_end)):
        start_kib, warm_kib, end_kib = rss_start.get(pid), rss_warm.get(pid), rss_end.get(pid)
        growth = (
            f"{(end_kib - warm_kib) / warm_kib * 100:+.1f} %"
            if warm_kib and end_kib
            else "n/a (restarted)"
        )
        lines.append(
            f"| {pid} | {(start_kib or 0) / 1024:.1f} | {(warm_kib or 0) / 1024:.1f} | "
            f"{(end_kib or 0) / 1024:.1f} | {growth} |"
        )
    report = "\n".join(lines) + "\n"
    print("\n".join(lines[summary:]), flush=True)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(report)
    print(f"Report written to {options.out}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
