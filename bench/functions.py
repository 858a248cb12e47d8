"""Instructions per request of each Python function, for two kinds of request side by side.

``PYTHONPATH=. <python 3.12+> -m bench.functions [view] [kind-a] [kind-b] [filter]``, e.g.
``... -m bench.functions tiny floor_mounted mcp``: where a ``tools/call`` spends what its
floor does not, function by function (docs/benchmarks.md, "Instruction counts").

``bench.instructions`` counts a whole request; this says where the count goes. Each kind is
run as ``bench.instructions`` runs it (the same child: warm-up, frozen heap, then ``n``
requests; ``PYTHONHASHSEED=0``), under callgrind, with CPython's perf trampolines on
(``-X perf``, Python 3.12 and later): every Python function is then entered through a small
piece of machine code of its own, which callgrind counts as a function, and which the
interpreter names in ``/tmp/perf-<pid>.map``. A function's inclusive count (itself and all
it calls) per request is its count after ``MANY`` requests less its count after ``FEW``,
divided by ``MANY - FEW``: start-up and warm-up cancel out, as in ``bench.instructions``.

Read the figures as a profile, not as the benchmark's: the trampolines add a little to every
Python call, and 3.12 counts differ from 3.11's. A function that calls itself (Django's
middleware chain, ``convert_exception_to_response``) is counted once per level; functions of
the same name and file are added up. Garbage collection is counted where it happens to run,
so a function that allocates the object that starts a collection pays for it; ``BENCH_NOGC=1``
turns the collector off once the heap is frozen, for counts without it.

``... -m bench.functions build [size] [filter]``: the same for a fresh process's build
(``bench.coldstart``'s ``build`` case, ``size`` operations, 1,000 by default) against
drf-spectacular's ``get_schema`` of the same endpoints (its ``get_schema`` case): one process
of each, each ending as soon as its case is done, every function's inclusive count in that
process. Where the two share a function (drf-spectacular's), the difference is what the
bridge's generation saves or adds; the bridge's own passes (``build_tool``, the schema
checks...) are the build's alone. Start-up is counted in both and mostly cancels out; a
module the build imports and ``get_schema`` does not shows up as ``<module>``.
"""

from __future__ import annotations

import bisect
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from bench import coldstart, instructions, lib

FEW, MANY = 20, 70
_LINE = re.compile(r"\s*([\d,]+)\s+(.*)$")
_ADDRESS = re.compile(r"0x([0-9a-f]+)")


def _start(kind: str, view: str, n: int, scratch: str) -> subprocess.Popen[str]:
    return instructions.start_child(
        kind,
        view,
        n,
        f"{scratch}/callgrind.{kind}.{n}.%p",
        python_options=("-X", "perf"),
        # The trampolines are written at run time, into pages that may already hold code.
        valgrind_options=("--smc-check=all-non-file",),
    )


def _names(perf_map: Path) -> tuple[list[int], list[int], list[str]]:
    """The trampolines of one run: start addresses (ascending), sizes and function names."""
    entries = []
    for line in perf_map.read_text().splitlines():
        address, size, name = line.split(" ", 2)
        entries.append((int(address, 16), int(size, 16), name.removeprefix("py::")))
    entries.sort()
    return [e[0] for e in entries], [e[1] for e in entries], [e[2] for e in entries]


def _short(name: str) -> str:
    """``function:file`` with the file relative to site-packages or to this checkout."""
    function, _, path = name.partition(":")
    for marker in ("site-packages/", f"{lib.ROOT}/"):
        if marker in path:
            path = path.split(marker, 1)[1]
    return f"{function}  {path}"


def _inclusive(out_file: Path) -> dict[str, int]:
    """Inclusive instructions of each Python function of one callgrind run, by name."""
    pid = out_file.name.rsplit(".", 1)[1]
    perf_map = Path(f"/tmp/perf-{pid}.map")
    starts, sizes, names = _names(perf_map)
    annotated = subprocess.run(
        [
            "callgrind_annotate",
            "--inclusive=yes",
            "--threshold=100",
            "--show-percs=no",
            str(out_file),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    perf_map.unlink()
    costs: dict[str, int] = {}
    for line in annotated.splitlines():
        match = _LINE.match(line)
        if not match or "???" not in match.group(2):
            continue  # a C function of the interpreter or of an extension
        address = _ADDRESS.search(match.group(2))
        if address is None:
            continue
        where = int(address.group(1), 16)
        index = bisect.bisect_right(starts, where) - 1
        if index < 0 or where - starts[index] >= sizes[index]:
            continue
        name = _short(names[index])
        costs[name] = costs.get(name, 0) + int(match.group(1).replace(",", ""))
    return costs


def per_request(kind: str, view: str) -> dict[str, float]:
    """Instructions per request of each Python function for ``kind`` (see the module docstring)."""
    with tempfile.TemporaryDirectory() as scratch:
        runs = {n: _start(kind, view, n, scratch) for n in (FEW, MANY)}
        for n, process in runs.items():
            _, stderr = process.communicate()
            if process.returncode != 0:
                raise SystemExit(f"{kind} {view} x{n} failed under valgrind:\n{stderr[-3000:]}")
        few, many = (
            _inclusive(next(Path(scratch).glob(f"callgrind.{kind}.{n}.*"))) for n in (FEW, MANY)
        )
    return {name: (many.get(name, 0) - few.get(name, 0)) / (MANY - FEW) for name in many}


def per_process(mode: str, size: int) -> dict[str, int]:
    """Instructions of each Python function in one fresh process of ``bench.coldstart``'s
    ``mode`` case (``build`` or ``get_schema``), under callgrind, ending when the case is done."""
    with tempfile.TemporaryDirectory() as scratch:
        process = coldstart.start_counted(
            mode,
            size,
            scratch,
            "unused",  # the key prefix of the Redis case only
            f"{scratch}/callgrind.{mode}.%p",
            python_options=("-X", "perf"),
            valgrind_options=("--smc-check=all-non-file",),
        )
        _, stderr = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"{mode} {size} failed under valgrind:\n{stderr[-3000:]}")
        return _inclusive(next(Path(scratch).glob(f"callgrind.{mode}.*")))


def _needs_perf_trampolines() -> None:
    if sys.version_info < (3, 12):
        raise SystemExit(
            "bench.functions needs Python 3.12 or later (perf trampolines, -X perf): make a "
            "virtualenv of it, e.g. python3.12 -m venv bench/.venv-perf && bench/.venv-perf/bin/pip "
            'install -e ".[fast,test]" -r bench/requirements.txt, and run it with that python.'
        )


def build(size: str = "1000", only: str = "") -> str:
    """The build of ``size`` operations against ``get_schema``, function by function."""
    _needs_perf_trampolines()
    lib.log(f"functions: the build of {size} operations and get_schema, under callgrind")
    return _table(
        per_process("get_schema", int(size)),
        per_process("build", int(size)),
        ("get_schema", "build"),
        only,
        f"Instructions by Python function, a fresh process's build of {size} operations against "
        f"get_schema (inclusive, Python {sys.version.split()[0]} -X perf)",
        "Per process, each ending as soon as its case is done (bench.coldstart's build and "
        "get_schema cases); the 80 largest differences of at least 0.5M. A function calling "
        "itself counts once per level.",
        unit=("M", 1e6),
    )


def run(
    view: str = "tiny", first: str = "floor_mounted", second: str = "mcp", only: str = ""
) -> str:
    _needs_perf_trampolines()
    lib.log(
        f"functions: {view} view, {first} and {second}, {FEW} and {MANY} requests each under callgrind"
    )
    return _table(
        per_request(first, view),
        per_request(second, view),
        (first, second),
        only,
        f"Instructions per request by Python function, {view} view (inclusive, Python {sys.version.split()[0]} -X perf)",
        f"Per request = (count after {MANY} requests - count after {FEW}) / {MANY - FEW}; the 80 "
        "largest differences of at least 0.5k. A function calling itself counts once per level.",
    )


def _table(
    a: Mapping[str, float],
    b: Mapping[str, float],
    kinds: tuple[str, str],
    only: str,
    title: str,
    footnote: str,
    unit: tuple[str, float] = ("k", 1e3),
) -> str:
    """The two kinds' counts side by side, by their difference (largest first)."""
    first, second = kinds
    label, scale = unit
    names = [name for name in set(a) | set(b) if only in name]
    names.sort(key=lambda name: -abs(b.get(name, 0) - a.get(name, 0)))
    rows = [
        [
            f"{(b.get(name, 0) - a.get(name, 0)) / scale:+,.1f}",
            f"{a.get(name, 0) / scale:,.1f}",
            f"{b.get(name, 0) / scale:,.1f}",
            name,
        ]
        for name in names[:80]
        if abs(b.get(name, 0) - a.get(name, 0)) >= scale / 2
    ]
    columns = [f"{second} - {first}, {label}", f"{first}, {label}", f"{second}, {label}"]
    return lib.table(title, [*columns, "function  file"], rows, footnote)


if __name__ == "__main__":
    if sys.argv[1:2] == ["build"]:
        build(*sys.argv[2:4])
    else:
        run(*sys.argv[1:5])
