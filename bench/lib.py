"""Helpers of the benchmarks: servers, timed requests, instruction counts, statistics and tables.

Everything talks to 127.0.0.1 only, and every loop is bounded by a count.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
VENV = BENCH_DIR / ".venv"
PEER_VENV = BENCH_DIR / ".venv-peer"
OUT_DIR = BENCH_DIR / ".out"
TOKEN = "b3nchb3nchb3nchb3nchb3nchb3nchb3nchb3nc"
HOST = "127.0.0.1"
#: The protocol revision of the MCP requests: the newest handshake-era one, which both
#: servers speak; both are stateless, so a tools/call needs no initialize first.
REVISION = "2025-11-25"
PEER_REVISION = "2025-06-18"  # the newest the peer's SDK (mcp 1.x) knows


def quick() -> bool:
    """``BENCH_QUICK=1``: a tenth of the samples, to check the harness itself."""
    return os.environ.get("BENCH_QUICK") == "1"


def scaled(n: int, minimum: int = 5) -> int:
    return max(minimum, n // 10) if quick() else n


# --- servers -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    name: str
    port: int
    process: subprocess.Popen[bytes]

    @property
    def base(self) -> str:
        return f"http://{HOST}:{self.port}"


@contextmanager
def gunicorn(name: str, *, workers: int = 1, peer: bool = False) -> Iterator[Server]:
    """A gunicorn server (sync workers) of the benchmark site on a free loopback port.

    ``peer``: django-mcp-server's site, from its own virtualenv.
    """
    port = _free_port()
    venv = PEER_VENV if peer else VENV
    settings = "bench.site.settings_peer" if peer else "bench.site.settings"
    command = [
        str(venv / "bin" / "gunicorn"),
        "--workers",
        str(workers),
        "--worker-class",
        "sync",
        "--bind",
        f"{HOST}:{port}",
        "--backlog",
        "64",
        "--log-level",
        "warning",
        "bench.site.wsgi:application",
    ]
    with _serving(f"gunicorn-{name}", command, port, settings) as server:
        yield server


@contextmanager
def uvicorn(name: str) -> Iterator[Server]:
    """A uvicorn server (ASGI, one process: :func:`cpu_seconds` reads the process that
    serves) of the benchmark site on a free loopback port."""
    port = _free_port()
    command = [
        str(VENV / "bin" / "uvicorn"),
        "--host",
        HOST,
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "bench.site.asgi:application",
    ]
    with _serving(f"uvicorn-{name}", command, port, "bench.site.settings") as server:
        yield server


@contextmanager
def _serving(name: str, command: list[str], port: int, settings: str) -> Iterator[Server]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings, "PYTHONPATH": str(ROOT)}
    OUT_DIR.mkdir(exist_ok=True)
    with open(OUT_DIR / f"{name}.log", "wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(200):  # up to 20 s to come up
                if process.poll() is not None:
                    raise RuntimeError(f"{name} exited; see {log.name}")
                try:
                    with socket.create_connection((HOST, port), timeout=0.2):
                        break
                except OSError:
                    time.sleep(0.1)
            else:
                raise RuntimeError(f"{name} did not start; see {log.name}")
            yield Server(name, port, process)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def cpu_seconds(server: Server) -> float:
    """The CPU time (user + system) the server's own process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{server.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- requests --------------------------------------------------------------------------


@dataclass
class Request:
    """One kind of request, sent again and again."""

    label: str
    server: Server
    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: Checks a response body once (outside the timed window); raises on a wrong answer.
    check: Any = None

    def send(self) -> tuple[float, int, bytes]:
        """Send it on a new connection (gunicorn's sync workers close each one): (seconds, status, body)."""
        start = time.perf_counter()
        connection = http.client.HTTPConnection(HOST, self.server.port, timeout=30)
        connection.request(self.method, self.path, body=self.body, headers=self.headers)
        response = connection.getresponse()
        body = response.read()
        elapsed = time.perf_counter() - start
        connection.close()
        return elapsed, response.status, body

    def verify(self) -> None:
        _, status, body = self.send()
        if status != 200:
            raise RuntimeError(f"{self.label}: HTTP {status}: {body[:300]!r}")
        if self.check is not None:
            self.check(body)


def rest(label: str, server: Server, path: str) -> Request:
    return Request(
        label,
        server,
        "GET",
        path,
        headers={"Authorization": f"Token {TOKEN}", "Accept": "application/json"},
    )


def mcp_message(method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()


def mcp(
    label: str,
    server: Server,
    path: str,
    method: str,
    params: dict[str, Any],
    revision: str = REVISION,
) -> Request:
    def check(body: bytes) -> None:
        answer = json.loads(body)
        if "result" not in answer or answer["result"].get("isError"):
            raise RuntimeError(f"{label}: not a successful result: {body[:400]!r}")

    return Request(
        label,
        server,
        "POST",
        path,
        body=mcp_message(method, params),
        headers={
            "Authorization": f"Token {TOKEN}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": revision,
        },
        check=check,
    )


#: The measured views in process: (tool, its arguments, the same operation's REST path).
IN_PROCESS_CASES = {
    "tiny": ("item_detail", {"id": 3}, "/api/items/3/"),
    "list": ("item_list", {"page": 2}, "/api/items/?page=2"),
}


#: The URL each in-process kind POSTs its ``tools/call`` to (``bench.site.urls``).
IN_PROCESS_PATHS = {
    "mcp": "/mcp/bench/",
    "floor": "/floor/",
    "floor_mounted": "/floor-mounted/bench/",
}


#: How far from its end a ``tools/call`` answer says ``"isError"``: the result's last keys
#: (``isError``, then ``_meta``) and the JSON-RPC message's closing braces.
_ANSWER_TAIL = 256


def succeeded(content: bytes) -> bool:
    """Whether a ``tools/call`` answer's body says ``"isError":false``, looked for among its last
    bytes only. The result ends with it, after ``content`` and ``structuredContent``: a search
    of the whole body scans both copies of the data (16k instructions for the 20-row list),
    which the counted MCP request would pay and the REST request, which checks its status only,
    would not."""
    return content.find(b'"isError":false', max(0, len(content) - _ANSWER_TAIL)) != -1


def in_process_senders(view: str) -> dict[str, Any]:
    """``{"mcp": ..., "floor": ..., "floor_mounted": ..., "rest": ...}``: callables sending one
    ``tools/call``, the same JSON-RPC POST to the floor (``bench.site.urls.floor``, and mounted
    by an ``include()`` as the endpoint is: ``floor_mounted``) and one REST request for
    ``view`` (a key of :data:`IN_PROCESS_CASES`) through Django's test client, each
    checking its answer. Django must be set up."""
    from django.test import Client

    tool, arguments, path = IN_PROCESS_CASES[view]
    client = Client(HTTP_HOST=HOST)
    auth = {"HTTP_AUTHORIZATION": f"Token {TOKEN}"}
    body = mcp_message("tools/call", {"name": tool, "arguments": arguments})
    headers = {
        **auth,
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": REVISION,
    }

    def posting_to(url: str) -> Callable[[], None]:
        """The ``tools/call`` POST to ``url``: the endpoint and the floors differ only there."""

        def send() -> None:
            response = client.post(url, body, content_type="application/json", **headers)
            answered = response.status_code == 200 and succeeded(response.content)
            assert answered, response.content[:300]

        return send

    def rest() -> None:
        response = client.get(path, HTTP_ACCEPT="application/json", **auth)
        assert response.status_code == 200, response.content[:300]

    posts = ("mcp", "floor", "floor_mounted")
    return {**{kind: posting_to(IN_PROCESS_PATHS[kind]) for kind in posts}, "rest": rest}


def interleaved(requests: Sequence[Request], n: int, warmup: int = 20) -> dict[str, list[float]]:
    """Send each request ``n`` times, in rounds of one each, the order rotating per round.

    Returns ``{label: [seconds, ...]}``. Warm-up rounds are not recorded.
    """
    for request in requests:
        request.verify()
    samples: dict[str, list[float]] = {r.label: [] for r in requests}
    for round_ in range(warmup + n):
        shift = round_ % len(requests)
        for request in [*requests[shift:], *requests[:shift]]:
            elapsed, status, body = request.send()
            if status != 200:
                raise RuntimeError(f"{request.label}: HTTP {status}: {body[:300]!r}")
            if round_ >= warmup:
                samples[request.label].append(elapsed)
    return samples


# --- instruction counts -------------------------------------------------------------

_COLLECTED = re.compile(r"Collected : (\d+)")
_Key = TypeVar("_Key", bound=Hashable)


def callgrind(
    module: str,
    args: Sequence[str | int],
    out_file: str,
    *,
    python_options: Sequence[str] = (),
    valgrind_options: Sequence[str] = (),
    environment: Mapping[str, str] | None = None,
) -> subprocess.Popen[str]:
    """``python [python_options] -m module args`` under valgrind's callgrind, started in this
    checkout and not waited for (:func:`collected` waits). Its counts go to ``out_file``; it
    runs with ``PYTHONHASHSEED=0``, so the same code counts the same twice, and with
    ``environment`` added to this process's."""
    return subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            *valgrind_options,
            f"--callgrind-out-file={out_file}",
            sys.executable,
            *python_options,
            "-m",
            module,
            *map(str, args),
        ],
        cwd=ROOT,
        env={**os.environ, **(environment or {}), "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def collected(process: subprocess.Popen[str], what: str) -> int:
    """The instructions of one whole process of :func:`callgrind` (valgrind's "Collected"
    total), once it has ended. Raises ``SystemExit`` with the end of its stderr when it failed
    or printed no count."""
    _, stderr = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"{what} failed under valgrind:\n{stderr[-3000:]}")
    found = _COLLECTED.findall(stderr)
    if not found:
        raise SystemExit(f"valgrind printed no instruction count for {what}:\n{stderr[-3000:]}")
    return int(found[-1])


def per_request(
    start: Callable[[_Key, int, str], subprocess.Popen[str]],
    keys: Iterable[_Key],
    few: int,
    many: int,
) -> dict[_Key, float]:
    """Instructions of one request of each of ``keys``: ``start(key, n, out_file)`` starts a
    process (:func:`callgrind`) that makes ``n`` requests after its warm-up. Both processes of
    every key run at once (an instruction count does not depend on what else the machine
    does); ``(count of many - count of few) / (many - few)`` cancels start-up and warm-up out."""
    with tempfile.TemporaryDirectory() as scratch:
        started = {
            key: tuple(start(key, n, f"{scratch}/callgrind.{index}.{n}.out") for n in (few, many))
            for index, key in enumerate(keys)
        }
        return {
            key: (collected(more, f"{key} x{many}") - collected(fewer, f"{key} x{few}"))
            / (many - few)
            for key, (fewer, more) in started.items()
        }


# --- statistics and tables ----------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]], note: str = "") -> str:
    """A Markdown table, printed and returned (``docs/benchmarks.md`` quotes them)."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [f"### {title}", ""]
    for index, row in enumerate(cells):
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
        if index == 0:
            lines.append("| " + " | ".join("-" * w for w in widths) + " |")
    if note:
        lines += ["", note]
    text = "\n".join(lines) + "\n"
    print(text, flush=True)
    return text


def verdict(value: float, target: float, *, at_most: bool = True) -> str:
    met = value <= target if at_most else value >= target
    return f"{'met' if met else 'MISSED'} ({'≤' if at_most else '≥'} {target:g})"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def modern_poster(declared: dict[str, Any]) -> Callable[[str, dict, bool, str | None], dict]:
    """``post(method, params, declares, name)``: one 2026-07-28 request to the bench group
    through Django's test client (Django set up), its ``result``. ``declares``: the client's
    capabilities are ``declared`` (an extension it declares), else none; ``name``: the
    ``Mcp-Name`` header. Shared by the benches of the extensions (bench.tasks, bench.apps)."""
    from django.test import Client  # Django is set up by the caller, after this module loads

    client = Client(HTTP_HOST=HOST)

    def post(method: str, params: dict, declares: bool, name: str | None = None) -> dict:
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": declared if declares else {},
        }
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
        )
        headers = {
            "HTTP_AUTHORIZATION": f"Token {TOKEN}",
            "HTTP_ACCEPT": "application/json, text/event-stream",
            "HTTP_MCP_PROTOCOL_VERSION": "2026-07-28",
            "HTTP_MCP_METHOD": method,
        }
        if name is not None:
            headers["HTTP_MCP_NAME"] = name
        response = client.post("/mcp/bench/", body, content_type="application/json", **headers)
        assert response.status_code == 200, response.content[:300]
        return response.json()["result"]

    return post
