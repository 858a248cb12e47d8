"""Startup: the wall time of ``manage.py check`` and of the full validation, per project.

Each figure is the median of R runs of a fresh process (``python manage.py ...``), so it
includes Python's and Django's own start-up; ``check --tag models`` (Django's model checks
only, none of mcp_bridge's) is that fixed cost, printed beside it. Projects:

* ``demo``: the demo shop (``demo_project.settings``);
* ``bench``: the benchmark site (``bench.site.settings``), whose generated APIs
  (``bench.shop.generated``) hold 1,110 operations in groups of 10, 100 and 1,000 operations.

Usage::

    PYTHONPATH=. .venv/bin/python -m bench.startup [rounds]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from bench import lib

PROJECTS = {"demo": "demo_project.settings", "bench": "bench.site.settings"}
COMMANDS = {
    "check --tag models": ["check", "--tag", "models"],
    "check": ["check"],
    "check --deploy": ["check", "--deploy"],
    "mcp_tools --validate": ["mcp_tools", "--validate"],
}


def _run(settings: str, arguments: list[str]) -> tuple[float, int]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings, "PYTHONPATH": str(lib.ROOT)}
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, str(lib.ROOT / "manage.py"), *arguments], env=env, capture_output=True, check=False
    )
    return time.perf_counter() - start, completed.returncode


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rows = []
    for project, settings in PROJECTS.items():
        for label, arguments in COMMANDS.items():
            # Interleaving would not help here: every run is a new process.
            times, codes = [], set()
            for _ in range(rounds):
                elapsed, code = _run(settings, arguments)
                times.append(elapsed)
                codes.add(code)
            rows.append(
                (project, label, f"{statistics.median(times):.2f}", f"{min(times):.2f}", ",".join(map(str, sorted(codes))))
            )
            lib.log(f"{project} {label}: {rows[-1][2]} s")
    lib.table(f"manage.py wall time, seconds (median and best of {rounds})",
                    ("project", "command", "median", "best", "exit"), rows)


if __name__ == "__main__":
    main()
