"""Startup: the wall time of ``manage.py check`` and of the full validation, per project.

Each figure is the median of R runs of a fresh process (``python manage.py ...``), so it
includes Python's and Django's own start-up; ``check --tag models`` (Django's model checks
only, none of mcp_bridge's) is that fixed cost, printed beside it. Projects:

* ``demo``: the demo shop (``demo_project.settings``);
* ``bench``: the benchmark site (``bench.site.settings``), whose generated APIs
  (``bench.shop.generated``) hold 1,110 operations in groups of 10, 100 and 1,000 operations.

With a second checkout (e.g. ``git worktree add /tmp/before <commit>``), each command runs
alternately in both, so that the load of a shared machine falls on both columns alike.

Usage::

    PYTHONPATH=. .venv/bin/python -m bench.startup [rounds] [other checkout]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import lib

PROJECTS = {"demo": "demo_project.settings", "bench": "bench.site.settings"}
COMMANDS = {
    "check --tag models": ["check", "--tag", "models"],
    "check": ["check"],
    "check --deploy": ["check", "--deploy"],
    "mcp_tools --validate": ["mcp_tools", "--validate"],
}


def _run(root: Path, settings: str, arguments: list[str]) -> tuple[float, int]:
    # The checkout's own code first on the path, whatever the virtualenv has installed.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings, "PYTHONPATH": str(root)}
    start = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, str(root / "manage.py"), *arguments], env=env, cwd=root, capture_output=True, check=False
    )
    return time.perf_counter() - start, completed.returncode


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    roots = {"this": lib.ROOT}
    if len(sys.argv) > 2:
        roots = {"other": Path(sys.argv[2]).resolve(), **roots}
    rows = []
    for project, settings in PROJECTS.items():
        for label, arguments in COMMANDS.items():
            times: dict[str, list[float]] = {name: [] for name in roots}
            codes: dict[str, set[int]] = {name: set() for name in roots}
            for _ in range(rounds):
                for name, root in roots.items():
                    elapsed, code = _run(root, settings, arguments)
                    times[name].append(elapsed)
                    codes[name].add(code)
            row: list[str] = [project, label]
            for name in roots:
                row += [f"{statistics.median(times[name]):.2f}", f"{min(times[name]):.2f}",
                        ",".join(map(str, sorted(codes[name])))]
            rows.append(tuple(row))
            lib.log(" ".join(row))
    header = ["project", "command"]
    for name in roots:
        header += [f"{name}: median", f"{name}: best", f"{name}: exit"]
    lib.table(f"manage.py wall time, seconds (median and best of {rounds} runs)", header, rows)


if __name__ == "__main__":
    main()
