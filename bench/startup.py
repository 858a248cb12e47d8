"""Startup: the wall time of ``manage.py check`` and of the full validation, per project.

Each figure is the median of R runs of a fresh process (``python manage.py ...``), so it
includes Python's and Django's own start-up; ``check --tag models`` (Django's model checks
only, none of mcp_bridge's) is that fixed cost, printed beside it. Projects:

* ``demo``: the demo shop (``demo_project.settings``);
* ``bench``: the benchmark site (``bench.site.settings``), whose generated APIs
  (``bench.shop.generated``) hold 1,110 operations in groups of 10, 100 and 1,000 operations.

With a second checkout (e.g. ``git worktree add /tmp/before <commit>``), each command runs
alternately in both, so that the load of a shared machine falls on both columns alike.

``inprocess`` times the system checks that run with every command inside one fresh process
each (all of them, and mcp_bridge's alone), without the process start-up.

Usage::

    PYTHONPATH=. .venv/bin/python -m bench.startup [rounds] [other checkout]
    PYTHONPATH=. .venv/bin/python -m bench.startup inprocess [rounds] [other checkout]
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
        [sys.executable, str(root / "manage.py"), *arguments],
        env=env,
        cwd=root,
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - start, completed.returncode


def checks_in_process() -> None:
    """In a fresh process (``DJANGO_SETTINGS_MODULE`` set): time every system check that runs
    with every command, each on its first call; print ``{check: seconds}`` as JSON."""
    import json

    import django

    django.setup()
    from django.core.checks.registry import registry

    timings = {}
    for check in registry.get_checks(include_deployment_checks=False):
        start = time.perf_counter()
        check(app_configs=None, databases=None)
        timings[f"{check.__module__}.{check.__name__}"] = time.perf_counter() - start
    print(json.dumps(timings))


def _in_process(root: Path, settings: str) -> dict[str, float]:
    import json

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings, "PYTHONPATH": str(root)}
    completed = subprocess.run(
        [sys.executable, "-c", "from bench.startup import checks_in_process; checks_in_process()"],
        env=env,
        cwd=root,
        capture_output=True,
        check=True,
        text=True,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main_in_process(rounds: int, roots: dict[str, Path]) -> None:
    """The checks of every command, timed in process: all of them, and mcp_bridge's alone."""
    rows = []
    for project, settings in PROJECTS.items():
        totals: dict[str, list[float]] = {name: [] for name in roots}
        ours: dict[str, list[float]] = {name: [] for name in roots}
        for _ in range(rounds):
            for name, root in roots.items():
                timings = _in_process(root, settings)
                totals[name].append(sum(timings.values()))
                ours[name].append(
                    sum(t for check, t in timings.items() if check.startswith("mcp_bridge."))
                )
        row = [project]
        for name in roots:
            row += [
                f"{statistics.median(totals[name]) * 1000:,.0f}",
                f"{statistics.median(ours[name]) * 1000:,.0f}",
            ]
        rows.append(tuple(row))
        lib.log(" ".join(row))
    header = ["project"]
    for name in roots:
        header += [f"{name}: every check, ms", f"{name}: mcp_bridge's, ms"]
    lib.table(
        f"The checks of every command, in process, ms (median of {rounds} fresh processes)",
        header,
        rows,
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "inprocess":
        del sys.argv[1]
        rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
        roots = {"this": lib.ROOT}
        if len(sys.argv) > 2:
            roots = {"other": Path(sys.argv[2]).resolve(), **roots}
        main_in_process(rounds, roots)
        return
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
                row += [
                    f"{statistics.median(times[name]):.2f}",
                    f"{min(times[name]):.2f}",
                    ",".join(map(str, sorted(codes[name]))),
                ]
            rows.append(tuple(row))
            lib.log(" ".join(row))
    header = ["project", "command"]
    for name in roots:
        header += [f"{name}: median", f"{name}: best", f"{name}: exit"]
    lib.table(f"manage.py wall time, seconds (median and best of {rounds} runs)", header, rows)


if __name__ == "__main__":
    main()
