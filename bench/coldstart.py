"""Benchmark 7: a fresh process's first ``tools/list``, built or loaded from the build store.

For groups of 1,000 and 5,000 generated operations (``bench/scale.py``, served by the URLconf
``bench/scale_urls.py``), each case is a fresh Python process, side by side in one run:

* **get_schema**: drf-spectacular's own ``SchemaGenerator(patterns=...).get_schema()`` for
  the same endpoints: the reference;
* **build**: the bridge with no store (``BUILD_STORE = None``): the process runs
  drf-spectacular and the whole build for its first ``tools/list``, as every worker did;
* **files**: the bridge loading the build that ``manage.py mcp_build`` wrote to the file store;
* **redis**: the same bytes, copied to and loaded from Django's ``RedisCache`` (``MCP_BRIDGE_TEST_REDIS_URL``, default
  ``redis://127.0.0.1:6379/15``, under a key prefix of the run's own, deleted afterwards).

The listing is the direct one (``DISCOVERY = "direct"``: every tool, one page) of an
authenticated caller (the bench user's token), whose visible tools are all of them.

Each process reports the time from its start (the parent's clock before ``Popen``) to the
answered ``tools/list``, the same after Django's setup and the URLconf's import (the fixed
start of every process, bridge or not), its CPU time, and what the loaded group holds in
memory: the bytes of every object reachable from the tool set (``sys.getsizeof`` of each
distinct object; classes, functions and modules left out), beside the bytes of its encoded
``tools/list`` page, and the process's RSS growth over the first ``tools/list``.

Run: ``DJANGO_SETTINGS_MODULE=bench.site.settings PYTHONPATH=. python -m bench.coldstart [1000 5000]``
(or ``bash bench/run coldstart``).

**Counted** (``python -m bench.coldstart instructions [1000]``, ~10 minutes): the same cases, each
a fresh process under valgrind's callgrind (:func:`bench.lib.callgrind`), which counts every
instruction the process executes whatever else the machine does: wall-clock and CPU ratios on a
shared 2-core host move by several per cent from run to run, instruction counts do not. Each
process ends (``os._exit``) as soon as its case is done, and one more, **setup**, ends where the
others start their case: each case's count less setup's is the case alone, and the ratios are
those against ``get_schema``'s. The loading cases read the same stored build, written first by
``mcp_build``.

**In CPU seconds** (``python -m bench.coldstart cpu [1000 [rounds]]``, ~1 minute): the build and
``get_schema`` only, several fresh processes of each, alternating, each timing its case alone
with ``time.process_time()``; the medians. The wall-clock table above runs each case once.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
import types
import uuid
from typing import Any

from bench import lib

SIZES = (1000, 5000)
MODES = ("get_schema", "build", "files", "redis")
REDIS_URL = os.environ.get("MCP_BRIDGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def held_bytes(root: Any) -> int:
    """The bytes of every distinct object reachable from ``root`` (code objects, classes,
    functions and modules excluded: they belong to the program, not to the group)."""
    skipped = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    seen: set[int] = set()
    pending = [root]
    total = 0
    while pending:
        obj = pending.pop()
        if id(obj) in seen or isinstance(obj, skipped):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        pending.extend(gc.get_referents(obj))
    return total


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _store_setting(mode: str, directory: str, prefix: str) -> Any:
    if mode == "files":
        return {"DIRECTORY": directory}
    if mode == "redis":
        return {"BACKEND": "cache", "CACHE_ALIAS": "builds"}
    return None


def child(mode: str, size: int, directory: str, prefix: str, counted: bool = False) -> None:
    """In a fresh process: one case; prints its figures as JSON on the last line. ``counted``
    (under callgrind, :func:`instructions`): the process ends as soon as the case is done,
    before the figures (walking the held objects) and the interpreter's shutdown, which
    would be counted too; mode ``setup`` ends where the cases start."""
    import django

    django.setup()
    from django.conf import settings
    from django.test.utils import override_settings

    caches = {
        **settings.CACHES,
        "builds": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        },
    }
    bridge = {
        "BUILD_STORE": _store_setting("files" if mode == "prepare" else mode, directory, prefix),
        # The whole group in one listing, as the memory target counts its encoded pages (the
        # default "auto" would list a big group's discovery meta-tools instead).
        "DISCOVERY": "direct",
    }
    with override_settings(ROOT_URLCONF="bench.scale_urls", CACHES=caches, MCP_BRIDGE=bridge):
        import bench.scale_urls as urls

        ready = time.perf_counter()
        group = f"scale{size}"
        if mode == "setup":
            os._exit(0)
        if mode == "prepare":
            # mcp_build to the file store, then the same bytes to Redis (one build, not two).
            from django.core.management import call_command

            from mcp_bridge.store import backends, keys
            from mcp_bridge.toolset import registry

            # The pages of the revision the first tools/list below asks for, as before
            # mcp_build encoded both eras' by default: the memory figures stay comparable.
            call_command("mcp_build", group, revision=[lib.REVISION], stdout=sys.stderr)
            key = keys.build_key(group, None, None, registry.get_url_index())
            data = backends.FileBuildStore(directory).get(key.name)
            assert data is not None, "mcp_build stored nothing"
            backends.CacheBuildStore("builds").put(key.name, data)
            return
        if mode == "get_schema":
            from drf_spectacular.generators import SchemaGenerator

            step_cpu = time.process_time()
            SchemaGenerator(patterns=urls.api_patterns).get_schema(request=None, public=True)
            step_cpu = time.process_time() - step_cpu
            if counted:
                os._exit(0)
            print(
                json.dumps(
                    {
                        "done": time.time(),
                        "after_start_s": time.perf_counter() - ready,
                        "cpu_s": time.process_time(),
                        "step_cpu_s": step_cpu,
                    }
                )
            )
            return
        from django.test import RequestFactory

        from mcp_bridge.toolset import registry
        from mcp_bridge.transport.endpoint import mcp_endpoint

        request = RequestFactory().post(
            f"/mcp/{group}/",
            json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
            content_type="application/json",
            HTTP_ACCEPT="application/json, text/event-stream",
            HTTP_MCP_PROTOCOL_VERSION=lib.REVISION,
            # The bench user's token: the generated views let authenticated callers in, and the
            # listing shows a caller the tools its permissions allow (FILTER_TOOLS_LIST), all of
            # them here; an anonymous one would be listed none.
            HTTP_AUTHORIZATION=f"Token {lib.TOKEN}",
        )
        rss = _rss()
        step_cpu = time.process_time()
        response = mcp_endpoint(request, group)
        step_cpu = time.process_time() - step_cpu
        if counted:
            os._exit(0 if response.status_code == 200 else 1)
        done = time.time()
        after_start = time.perf_counter() - ready
        cpu = time.process_time()
        assert response.status_code == 200, response.content[:300]
        gc.collect()
        rss_growth = _rss() - rss
        toolset = registry.get_toolset(group)
        pages = sum(len(page.text.encode()) for page in toolset.pages.values())
        print(
            json.dumps(
                {
                    "done": done,
                    "after_start_s": after_start,
                    "cpu_s": cpu,
                    "step_cpu_s": step_cpu,
                    "tools": len(toolset.tools),
                    "held": held_bytes(toolset),
                    "pages": pages,
                    "rss_growth": rss_growth,
                }
            )
        )


def _child_environment(size: int) -> dict[str, str]:
    """What a case's process needs beyond this one's environment: the bench's settings, and
    the size of the generated group its URLconf serves."""
    return {"DJANGO_SETTINGS_MODULE": "bench.site.settings", "BENCH_SCALE_SIZE": str(size)}


def _run(mode: str, size: int, directory: str, prefix: str) -> dict[str, Any]:
    env = {**os.environ, **_child_environment(size), "PYTHONPATH": str(lib.ROOT)}
    start = time.time()
    completed = subprocess.run(
        [sys.executable, "-m", "bench.coldstart", "child", mode, str(size), directory, prefix],
        env=env,
        cwd=lib.ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{mode} {size}: {completed.stderr[-3000:]}")
    if mode == "prepare":
        return {}
    figures = json.loads(completed.stdout.strip().splitlines()[-1])
    figures["from_start_s"] = figures["done"] - start
    return figures


def _clear_redis(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


def measure(size: int) -> dict[str, dict[str, Any]]:
    import tempfile

    prefix = f"mcp-bridge-bench-{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory(prefix="mcp-bridge-coldstart-") as directory:
        try:
            lib.log(f"coldstart {size}: mcp_build to files, copied to redis")
            _run("prepare", size, directory, prefix)
            results = {}
            for mode in MODES:
                lib.log(f"coldstart {size}: {mode}")
                results[mode] = _run(mode, size, directory, prefix)
            return results
        finally:
            _clear_redis(prefix)


def run(sizes: tuple[int, ...] = SIZES) -> str:
    rows = []
    memory = []
    for size in sizes:
        results = measure(size)
        spectacular = results["get_schema"]
        for mode in MODES:
            r = results[mode]
            rows.append(
                [
                    size,
                    mode,
                    f"{r['from_start_s']:.2f}",
                    f"{r['after_start_s']:.2f}",
                    f"{r['cpu_s']:.2f}",
                    f"{r['from_start_s'] / spectacular['after_start_s']:.2f}",
                    f"{r['after_start_s'] / spectacular['after_start_s']:.3f}",
                ]
            )
            if "held" in r:
                memory.append(
                    [
                        size,
                        mode,
                        r["tools"],
                        f"{r['pages'] / 1024:,.0f}",
                        f"{r['pages'] / r['tools'] / 1024:.2f}",
                        f"{r['held'] / 1024:,.0f}",
                        f"{r['held'] / r['tools'] / 1024:.2f}",
                        f"{r['held'] / r['pages']:.2f}",
                        f"{r['rss_growth'] / 1024:,.0f}",
                    ]
                )
    times = lib.table(
        "7a. A fresh process's first tools/list: built, loaded from files, loaded from Redis, vs drf-spectacular's get_schema",
        [
            "operations",
            "case",
            "from process start s",
            "after Django setup and URLconf s",
            "process CPU s",
            "from start / get_schema",
            "after setup / get_schema",
        ],
        rows,
        "One fresh process per case. get_schema's 'after setup' time is the generation itself, the "
        "denominator of both ratios; target: loading ≤ 0.1× get_schema.",
    )
    held = lib.table(
        "7b. What the group holds after its first tools/list",
        [
            "operations",
            "case",
            "tools",
            "encoded page KiB",
            "page KiB per tool",
            "held KiB",
            "held KiB per tool",
            "held / page",
            "RSS growth KiB",
        ],
        memory,
        "held: every object reachable from the tool set (its encoded page included); target ≤ 3× the page.",
    )
    return times + "\n" + held


def cpu(size: int = 1000, rounds: int = 7) -> str:
    """The build against ``get_schema`` in CPU seconds: ``rounds`` fresh processes of each,
    alternating (which one runs first changes every round), each timing
    ``time.process_time()`` around its case alone (the first ``tools/list`` with no store;
    ``get_schema``); the medians, and their ratio."""
    import statistics
    import tempfile

    seconds: dict[str, list[float]] = {"build": [], "get_schema": []}
    with tempfile.TemporaryDirectory(prefix="mcp-bridge-coldstart-") as directory:
        for round_ in range(rounds):
            order = ("build", "get_schema") if round_ % 2 == 0 else ("get_schema", "build")
            for mode in order:
                lib.log(f"coldstart {size}: {mode}, round {round_ + 1} of {rounds}")
                seconds[mode].append(_run(mode, size, directory, "unused")["step_cpu_s"])
    build, spectacular = (statistics.median(seconds[m]) for m in ("build", "get_schema"))
    rows = [
        [
            size,
            mode,
            rounds,
            f"{statistics.median(seconds[mode]):.3f}",
            f"{min(seconds[mode]):.3f}-{max(seconds[mode]):.3f}",
        ]
        for mode in ("get_schema", "build")
    ]
    return lib.table(
        "7d. A fresh process's first tools/list without a store, in CPU seconds, vs "
        "drf-spectacular's get_schema",
        ["operations", "case", "processes", "median CPU s", "range"],
        rows,
        f"build / get_schema: {build / spectacular:.3f} (medians; target ≤ 1.0). Each process "
        "times time.process_time() around its case alone; the two cases alternate.",
    )


COUNTED_MODES = ("setup", *MODES)


def start_counted(
    mode: str,
    size: int,
    directory: str,
    prefix: str,
    out_file: str,
    *,
    python_options: tuple[str, ...] = (),
    valgrind_options: tuple[str, ...] = (),
) -> subprocess.Popen[str]:
    """One case's fresh process (:func:`child`, ending as soon as its case is done) under
    callgrind (:func:`bench.lib.callgrind`), writing its counts to ``out_file``
    (``bench.functions build`` runs it with the interpreter's perf trampolines on)."""
    return lib.callgrind(
        "bench.coldstart",
        ["child", mode, size, directory, prefix, "counted"],
        out_file,
        python_options=python_options,
        valgrind_options=valgrind_options,
        environment=_child_environment(size),
    )


def instructions(size: int = 1000) -> str:
    """The cases of :func:`run` counted in instructions (see the module), one process each
    under callgrind, all at once, after the stored build is written."""
    import tempfile

    prefix = f"mcp-bridge-bench-{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory(prefix="mcp-bridge-coldstart-") as directory:
        try:
            lib.log(f"coldstart {size}: mcp_build to files, copied to redis")
            _run("prepare", size, directory, prefix)
            lib.log(f"coldstart {size}: {', '.join(COUNTED_MODES)} under callgrind, at once")
            started = {
                mode: start_counted(
                    mode, size, directory, prefix, f"{directory}/callgrind.{mode}.out"
                )
                for mode in COUNTED_MODES
            }
            counts = {mode: lib.collected(process, mode) for mode, process in started.items()}
        finally:
            _clear_redis(prefix)
    alone = {mode: counts[mode] - counts["setup"] for mode in MODES}
    rows = [
        [size, "setup", f"{counts['setup'] / 1e6:,.0f}", "", ""],
        *(
            [
                size,
                mode,
                f"{counts[mode] / 1e6:,.0f}",
                f"{alone[mode] / 1e6:,.0f}",
                f"{alone[mode] / alone['get_schema']:.3f}",
            ]
            for mode in MODES
        ),
    ]
    return lib.table(
        "7c. A fresh process's first tools/list, counted: built, loaded from files, loaded from "
        "Redis, vs drf-spectacular's get_schema",
        ["operations", "case", "process Minstr", "case alone Minstr", "case / get_schema"],
        rows,
        "Instructions under callgrind, each process ending as soon as its case is done; 'case "
        "alone' is the process's count less setup's (Django's setup and the URLconf's import). "
        "Targets: build ≤ 1.0, files ≤ 0.05, redis ≤ 0.1.",
    )


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child(
            sys.argv[2],
            int(sys.argv[3]),
            sys.argv[4],
            sys.argv[5],
            counted=sys.argv[6:7] == ["counted"],
        )
    elif sys.argv[1:2] == ["instructions"]:
        print(instructions(*(int(a) for a in sys.argv[2:3])))
    elif sys.argv[1:2] == ["cpu"]:
        print(cpu(*(int(a) for a in sys.argv[2:4])))
    else:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
        print(run(tuple(int(a) for a in sys.argv[1:]) or SIZES))
