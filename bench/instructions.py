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

The warm-up runs once outside valgrind first (:func:`fill_build_store`), so that both counted
processes load the tool set from the build store rather than one building it. With
``BENCH_INSTRUCTIONS_REPEATS=N``, each figure is the median of ``N`` such counts, and the
table's note gives their ranges.

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
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

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
_COLLECTED = re.compile(r"Collected : (\d+)")


def _child(kind: str, view: str, n: int) -> None:
    """Inside valgrind: warm up, then send ``n`` requests of ``kind`` (one of :data:`KINDS`)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    senders = lib.in_process_senders(view)

    # Every kind warms up, whichever is measured: the process then holds what a server
    # worker serving all of them holds (the tool set, the URL index), and the garbage
    # collector walks the same heap on every side.
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


def _start(kind: str, view: str, n: int, scratch: str) -> subprocess.Popen[str]:
    """One child process under callgrind, started (the two counts of a measure run side by
    side: instruction counts do not depend on what else the machine does)."""
    return start_child(kind, view, n, f"{scratch}/callgrind.{n}.out")


def start_child(
    kind: str,
    view: str,
    n: int,
    out_file: str,
    *,
    python_options: tuple[str, ...] = (),
    valgrind_options: tuple[str, ...] = (),
) -> subprocess.Popen[str]:
    """The child of :func:`_child` under callgrind, writing its counts to ``out_file``
    (``bench.functions`` runs it with the interpreter's perf trampolines on)."""
    return subprocess.Popen(
        [
            "valgrind",
            "--tool=callgrind",
            *valgrind_options,
            f"--callgrind-out-file={out_file}",
            sys.executable,
            *python_options,
            "-m",
            "bench.instructions",
            "--child",
            kind,
            view,
            str(n),
        ],
        cwd=lib.ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(lib.ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _collected(process: subprocess.Popen[str], what: str) -> int:
    """The instructions of one whole child process (valgrind's "Collected" total)."""
    _, stderr = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"{what} failed under valgrind:\n{stderr[-3000:]}")
    found = _COLLECTED.findall(stderr)
    if not found:
        raise SystemExit(f"valgrind printed no instruction count for {what}:\n{stderr[-3000:]}")
    return int(found[-1])


def fill_build_store(view: str) -> None:
    """Run the warm-up once outside valgrind, so that the build store holds the tool set.

    The two counted processes of a measure start together: after a change of the code (which
    the build's key includes), one would build the tool set and store it while the other waited
    and loaded it, and their warm-ups, which the difference is meant to cancel, would differ.
    """
    subprocess.run(
        [sys.executable, "-m", "bench.instructions", "--child", "mcp", view, "0"],
        cwd=lib.ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(lib.ROOT)},
        stdout=subprocess.DEVNULL,
        check=True,
    )


def per_request(kind: str, view: str) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        few, many = _start(kind, view, FEW, scratch), _start(kind, view, MANY, scratch)
        counts = (
            _collected(many, f"{kind} {view} x{MANY}"),
            _collected(few, f"{kind} {view} x{FEW}"),
        )
    return (counts[0] - counts[1]) / (MANY - FEW)


def run(views: list[str] | None = None) -> str:
    if shutil.which("valgrind") is None:
        return "Instruction counts skipped: valgrind is not installed (apt-get install valgrind).\n"
    rows = []
    spreads: list[str] = []
    for view in views or list(CASES):
        lib.log(
            f"instructions: {view} view, REST, floors and tools/call, {FEW} and {MANY} requests each under callgrind"
        )
        fill_build_store(view)
        counted = {kind: [per_request(kind, view) for _ in range(REPEATS)] for kind in KINDS}
        spreads.extend(
            f"{view} {kind} {min(values) / 1e3:,.1f}-{max(values) / 1e3:,.1f}k"
            for kind, values in counted.items()
            if len(values) > 1
        )
        rest, floor, mounted, mcp = (statistics.median(counted[kind]) for kind in KINDS)
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
        ],
        rows,
        f"Per request = (count of {MANY} requests - count of {FEW}) / {MANY - FEW}, after {WARM_UP} of each kind; "
        "PYTHONHASHSEED=0. Counts repeat run to run, unlike times on a shared host. The floor is "
        "the same JSON-RPC POST handed to the same view with the same envelope (bench.site.urls.floor); "
        "the mounted floor is the same view at a URL of an include(), as the MCP endpoint is mounted."
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
