"""Run the benchmarks and write their tables to ``bench/.out/results.md``.

``python -m bench.main [call_overhead] [peer] [listing] [throughput]`` (all by default);
``bash bench/run`` sets everything up first. ``BENCH_QUICK=1``: a tenth of the samples.
``instructions`` (instruction counts under valgrind, ~6 minutes), ``scale`` (groups of 1,000
and 5,000 operations, ~5 minutes), ``discovery`` (search mode of big groups, ~15 minutes) and
``coldstart`` (a fresh process per case, ~10 minutes) and ``confirmation`` (a person's
confirmation, both requests, under valgrind, ~3 minutes) run only when named.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
import time
from importlib.metadata import version

from bench import lib

ALL = ("call_overhead", "peer", "listing", "throughput")
ON_REQUEST = (
    "instructions",
    "scale",
    "discovery",
    "coldstart",
    "confirmation",
    "tracing",
    "tasks",
    "resources",
)


def machine() -> str:
    peer = lib.PEER_VENV / "bin" / "python"
    lines = [
        f"- cores: {os.cpu_count()}; load average at the start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- Python {platform.python_version()} ({platform.machine()}, {platform.system()} {platform.release()})",
        (
            f"- Django {version('django')}, djangorestframework {version('djangorestframework')}, "
            f"drf-spectacular {version('drf-spectacular')}, jsonschema {version('jsonschema')}, "
            f"gunicorn {version('gunicorn')}"
        ),
        f"- the fast extra: jsonschema-rs {version('jsonschema-rs')}, orjson {version('orjson')}",
    ]
    if peer.exists():
        import subprocess

        peer_versions = subprocess.run(
            [
                str(peer),
                "-c",
                (
                    "from importlib.metadata import version as v; "
                    "print(f\"django-mcp-server {v('django-mcp-server')}, mcp {v('mcp')}, Django {v('django')}, "
                    "djangorestframework {v('djangorestframework')}\")"
                ),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        lines.append(f"- peer virtualenv: {peer_versions}")
    return "\n".join(lines) + "\n"


def main(names: list[str]) -> None:
    unknown = set(names) - set(ALL) - set(ON_REQUEST)
    if unknown:
        sys.exit(
            f"unknown benchmark(s): {', '.join(sorted(unknown))}; choose from {', '.join(ALL + ON_REQUEST)}"
        )
    started = time.time()
    text = f"## Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{machine()}\n"
    print(text, flush=True)
    for name in names or ALL:
        module = importlib.import_module(f"bench.{name}")
        text += module.run() + "\n"
    text += f"Whole run: {time.time() - started:.0f} s{' (BENCH_QUICK)' if lib.quick() else ''}.\n"
    lib.OUT_DIR.mkdir(exist_ok=True)
    (lib.OUT_DIR / "results.md").write_text(text)
    print(
        f"Whole run: {time.time() - started:.0f} s. Tables written to {lib.OUT_DIR / 'results.md'}",
        flush=True,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
