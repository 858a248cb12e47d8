"""Instructions per request: ``tools/call`` against the REST request to the same view, and
against its floor, counted.

``bash bench/run instructions`` (or ``python -m bench.instructions [tiny|list ...]``).

Wall-clock ratios on a shared 2-core host move by a few percent between runs; the number
of CPU instructions a request executes does not. Each measure runs one Python process
under valgrind's callgrind (``--tool=callgrind``, which counts every instruction the
process executes), through Django's test client (the whole middleware stack and
handler, no network):

1. Django is set up and 50 requests of each kind warm every cache (the tool set, the
   compiled validators, the negotiated language, the database connection), so that
   both sides run in a process holding the same objects, as one server worker would;
2. the objects the warm-up left are frozen (``gc.freeze()``, as a pre-forking server does
   before it forks its workers): the garbage collector then walks only what the measured
   requests allocate. Without it, a full collection walking the whole heap (tens of millions
   of instructions) lands in one count and not in the other from time to time, which moved a
   kind's figure by ±25k instructions per request between runs of the same code;
3. then ``n`` more requests.

The benchmark's settings have no build store (``bench/site/settings.py``): both counted
processes build the tool set in their warm-up, alike. With ``BENCH_INSTRUCTIONS_REPEATS=N``,
each figure is the median of ``N`` such counts, and the table's note gives their ranges.

Run once with ``n = FEW`` and once with ``n = MANY``, the difference divided by
``MANY - FEW`` is the cost of one request, start-up and warm-up cancelled out. Both
processes run with ``PYTHONHASHSEED=0``, so the same code gives the same count twice.

Four kinds are counted per view: the REST request; the **floor**, the same JSON-RPC POST
handed to the same view in process with the same result envelope by the least code that
can do it (``bench.site.urls.floor``: no checks, signals, language or caching); the
**mounted floor**, the same floor at a URL of an ``include()`` whose pattern names the group,
as ``include("mcp_bridge.urls")`` mounts the endpoint (Django's nested resolution makes a
second ``URLResolver`` pass and a second ``ResolverMatch``: what the flat floor does not
pay); and the ``tools/call``. Reported: instructions per request of each, MCP/REST (the in-process
analogue of benchmark 1's latency ratio, without gunicorn and the network, which both
sides pay alike), MCP/floor (what the bridge spends above the floor), MCP/mounted floor
(the same, less what the include() costs), and the targets (against the flat floor):
MCP ≤ 1.01× the floor for every view, and ≤ 1.06× REST for the tiny view, ≤ 1.01× for the
20-row list.

The URLs themselves are counted too, once per run (:func:`per_resolution`): Django's
``URLResolver.resolve()`` of the endpoint's path (``/mcp/bench/``) and of the flat floor's
(``/floor/``), alone, in a process that only resolves. Their difference is what any view at the
endpoint's URL pays above the flat floor before it runs a line of its own; the **floor at the
endpoint's URL** (the flat floor plus that difference) is the least a bridge mounted by
``include("mcp_bridge.urls")`` can count, and MCP above it is what the bridge itself spends.

The REST request's own path is counted the same way, per view (``url:rest``): the bench's
URLconf lists the REST views first, at flat paths, and the endpoint last, behind an
``include()``, so resolving ``/mcp/bench/`` costs about three times as much as ``/api/items/``.
**REST at the endpoint's URL** (REST plus that difference) is the REST request as it would
count if its view sat where the endpoint sits; MCP against it is the call without the URLconf's
order. It is reported beside MCP/REST, whose target is set against REST as it is.

``DJANGO_SETTINGS_MODULE=bench.site.settings_mounted`` counts the same requests with the URLs laid
out as a project mounts its APIs (:mod:`bench.site.urls_mounted`): the REST views under one
``include()``, the endpoint under another right after it, the other benchmarks' URLs last.
"""

from __future__ import annotations

import gc
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable, Mapping

from bench import lib

FEW, MANY = 50, 250
WARM_UP = 50
CASES = lib.IN_PROCESS_CASES
KINDS = ("rest", "floor", "floor_mounted", "mcp")
#: MCP/REST targets per view; MCP/floor's is FLOOR_TARGET for every view.
REST_TARGETS = {"tiny": 1.06, "list": 1.01}
FLOOR_TARGET = 1.01
#: Counts per figure (``BENCH_INSTRUCTIONS_REPEATS``), the median reported: a count moves by up
#: to ~15k instructions per request between runs (where glibc's malloc finds memory), about
#: as much as the 1 % a target leaves the tiny call.
REPEATS = max(1, int(os.environ.get("BENCH_INSTRUCTIONS_REPEATS", "1")))


#: The kinds whose URL is resolved alone (:func:`per_resolution`), prefixed in the child's
#: command line: ``url:mcp``, ``url:floor``; and ``url:rest``, a view's REST path
#: (:func:`_url_path`), per view.
URL_KINDS = ("floor", "mcp")
#: How many resolutions the two counted processes of a URL make (:func:`per_resolution`).
RESOLUTIONS = (500, 4500)
_URL_PREFIX = "url:"


def _child(kind: str, view: str, n: int) -> None:
    """Inside valgrind: warm up, then send ``n`` requests of ``kind`` (one of :data:`KINDS`),
    or resolve the URL of a ``url:`` kind ``n`` times."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    if kind.startswith(_URL_PREFIX):
        _resolve_child(_url_path(kind, view), n)
        return
    measure(lib.in_process_senders(view), kind, n)


def measure(senders: Mapping[str, Callable[[], object]], kind: str, n: int) -> None:
    """Inside valgrind: every one of ``senders`` :data:`WARM_UP` times, the heap frozen, then
    ``n`` requests of ``senders[kind]``.

    Every kind warms up, whichever is measured: the process then holds what a server worker
    serving all of them holds (the tool set, the URL index), and the garbage collector walks
    the same heap on every side."""
    for _ in range(WARM_UP):
        for warm in senders.values():
            warm()
    send = senders[kind]
    gc.collect()
    gc.freeze()
    if os.environ.get("BENCH_NOGC"):  # bench.functions, for counts without the collector
        gc.disable()
    for _ in range(n):
        send()


def _url_path(kind: str, view: str) -> str:
    """The path a ``url:`` kind resolves: the endpoint's or a floor's (:data:`URL_KINDS`), or
    for ``url:rest`` the REST path of ``view``, without its query."""
    name = kind.removeprefix(_URL_PREFIX)
    if name == "rest":
        return CASES[view][2].partition("?")[0]
    return lib.IN_PROCESS_PATHS[name]


def _resolve_child(path: str, n: int) -> None:
    """Resolve ``path`` as Django's handler does for a request (the root resolver of
    ``ROOT_URLCONF``), warmed and frozen as :func:`_child` does, then ``n`` times."""
    from django.urls import get_resolver

    resolver = get_resolver()
    for _ in range(WARM_UP):
        resolver.resolve(path)
    gc.collect()
    gc.freeze()
    for _ in range(n):
        resolver.resolve(path)


def start_child(
    kind: str,
    view: str,
    n: int,
    out_file: str,
    *,
    python_options: tuple[str, ...] = (),
    valgrind_options: tuple[str, ...] = (),
) -> subprocess.Popen[str]:
    """The child of :func:`_child` under callgrind (:func:`bench.lib.callgrind`), writing its
    counts to ``out_file`` (``bench.functions`` runs it with the interpreter's perf
    trampolines on)."""
    return lib.callgrind(
        "bench.instructions",
        ["--child", kind, view, n],
        out_file,
        python_options=python_options,
        valgrind_options=valgrind_options,
    )


def per_request(kind: str, view: str, few: int = FEW, many: int = MANY) -> float:
    """Instructions of one request of ``kind`` for ``view`` (:func:`bench.lib.per_request`)."""
    counted = lib.per_request(
        lambda key, n, out_file: start_child(key, view, n, out_file), [kind], few, many
    )
    return counted[kind]


def per_resolution(kind: str, view: str = "-") -> float:
    """Instructions of one ``URLResolver.resolve()`` of ``kind``'s URL (one of :data:`URL_KINDS`,
    or ``"rest"``: ``view``'s REST path),
    counted as :func:`per_request` counts a request, over :data:`RESOLUTIONS`: two processes
    differ by up to a few million instructions before the first one (Django's set-up, where
    malloc finds memory), which 200 resolutions of ~100k each would not outweigh."""
    return per_request(_URL_PREFIX + kind, view, *RESOLUTIONS)


def run(views: list[str] | None = None) -> str:
    if shutil.which("valgrind") is None:
        return "Instruction counts skipped: valgrind is not installed (apt-get install valgrind).\n"
    rows = []
    spreads: list[str] = []
    lib.log(
        "instructions: the URLs of the floor and of the endpoint, "
        f"{RESOLUTIONS[0]} and {RESOLUTIONS[1]} resolutions each under callgrind"
    )
    urls = {kind: [per_resolution(kind) for _ in range(REPEATS)] for kind in URL_KINDS}
    spreads.extend(
        f"URL {kind} {min(values) / 1e3:,.1f}-{max(values) / 1e3:,.1f}k"
        for kind, values in urls.items()
        if len(values) > 1
    )
    url_floor, url_mcp = (statistics.median(urls[kind]) for kind in URL_KINDS)
    for view in views or list(CASES):
        lib.log(
            f"instructions: {view} view, REST, floors and tools/call, {FEW} and {MANY} requests each under callgrind"
        )
        counted = {kind: [per_request(kind, view) for _ in range(REPEATS)] for kind in KINDS}
        rest_urls = [per_resolution("rest", view) for _ in range(REPEATS)]
        if len(rest_urls) > 1:
            spreads.append(
                f"{view} URL rest {min(rest_urls) / 1e3:,.1f}-{max(rest_urls) / 1e3:,.1f}k"
            )
        spreads.extend(
            f"{view} {kind} {min(values) / 1e3:,.1f}-{max(values) / 1e3:,.1f}k"
            for kind, values in counted.items()
            if len(values) > 1
        )
        rest, floor, mounted, mcp = (statistics.median(counted[kind]) for kind in KINDS)
        floor_at_endpoint = floor + url_mcp - url_floor
        url_rest = statistics.median(rest_urls)
        rest_at_endpoint = rest + url_mcp - url_rest
        rows.append(
            [
                view,
                f"{rest / 1e3:,.0f}",
                f"{floor / 1e3:,.0f}",
                f"{mcp / 1e3:,.0f}",
                f"{mcp / rest:.3f}",
                lib.verdict(mcp / rest, REST_TARGETS.get(view, 1.10)),
                f"{mcp / floor:.3f}",
                lib.verdict(mcp / floor, FLOOR_TARGET),
                f"{(mcp - floor) / 1e3:,.0f}",
                f"{mounted / 1e3:,.0f}",
                f"{mcp / mounted:.3f}",
                f"{floor_at_endpoint / 1e3:,.0f} ({floor_at_endpoint / floor:.4f}× the floor)",
                f"{mcp / floor_at_endpoint:.3f}",
                f"{rest_at_endpoint / 1e3:,.0f} (REST's URL {url_rest / 1e3:,.1f}k)",
                f"{mcp / rest_at_endpoint:.3f}",
            ]
        )
    return lib.table(
        "Instructions per request (callgrind, in process through Django's test client)",
        [
            "view",
            "REST k instr",
            "floor k instr",
            "tools/call k instr",
            "MCP/REST",
            "target",
            "MCP/floor",
            "target",
            "above the floor, k instr",
            "mounted floor k instr",
            "MCP/mounted floor",
            "floor at the endpoint's URL, k instr",
            "MCP/floor at the endpoint's URL",
            "REST at the endpoint's URL, k instr",
            "MCP/REST at the endpoint's URL",
        ],
        rows,
        f"Per request = (count of {MANY} requests - count of {FEW}) / {MANY - FEW}, after {WARM_UP} of each kind; "
        "PYTHONHASHSEED=0. Counts repeat run to run, unlike times on a shared host. The floor is "
        "the same JSON-RPC POST handed to the same view with the same envelope (bench.site.urls.floor); "
        "the mounted floor is the same view at a URL of an include(), as the MCP endpoint is mounted. "
        f"Resolving the endpoint's URL ({lib.IN_PROCESS_PATHS['mcp']}) costs {url_mcp / 1e3:,.1f}k, the "
        f"floor's ({lib.IN_PROCESS_PATHS['floor']}) {url_floor / 1e3:,.1f}k: the floor at the endpoint's "
        "URL (the floor plus their difference) is the least a bridge mounted there can count; REST "
        "at the endpoint's URL is REST plus the difference between the endpoint's URL and the REST "
        "request's own (the URLconf lists the REST views first, the endpoint last)."
        + (
            f" Each figure is the median of {REPEATS} counts; their ranges: {'; '.join(spreads)}."
            if spreads
            else ""
        ),
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        run(sys.argv[1:] or None)
