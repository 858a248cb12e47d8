"""Instructions per ``tools/call`` of two ``mcp_bridge`` trees, and per REST request, counted.

``PYTHONPATH=. bench/.venv/bin/python -m bench.trees <before-dir> <after-dir> [tiny|list]``

Each directory holds an ``mcp_bridge`` package (``git archive <commit> mcp_bridge | tar -x -C
<dir>``), put first on ``sys.path`` of its processes. The count is
:mod:`bench.instructions`'s (callgrind, ``PYTHONHASHSEED=0``, Django's test client, both kinds
warmed up in every process), per request = (count after ``MANY`` requests - count after
``FEW``) / (``MANY - FEW``); the six processes run at once. Used for issue 12's figures in
``docs/benchmarks.md``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

FEW, MANY = 20, 100
_COLLECTED = re.compile(r"Collected : (\d+)")


def _child(root: str, view: str, kind: str, n: int) -> None:
    sys.path.insert(0, root)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    import mcp_bridge

    assert mcp_bridge.__file__.startswith(root), mcp_bridge.__file__
    from bench import lib

    senders = lib.in_process_senders(view)
    mcp, rest = senders["mcp"], senders["rest"]
    for _ in range(30):
        mcp()
        rest()
    send = mcp if kind == "mcp" else rest
    for _ in range(n):
        send()


def main(before: str, after: str, view: str = "list") -> None:
    runs = [
        (label, root, kind)
        for label, root, kind in (
            ("before", before, "mcp"),
            ("after", after, "mcp"),
            ("REST", after, "rest"),
        )
    ]
    processes = {}
    with tempfile.TemporaryDirectory() as scratch:
        for label, root, kind in runs:
            for n in (FEW, MANY):
                processes[label, n] = subprocess.Popen(
                    [
                        "valgrind",
                        "--tool=callgrind",
                        f"--callgrind-out-file={scratch}/{label}.{n}.out",
                        sys.executable,
                        "-m",
                        "bench.trees",
                        "--child",
                        os.path.abspath(root),
                        view,
                        kind,
                        str(n),
                    ],
                    env={**os.environ, "PYTHONHASHSEED": "0"},
                    stderr=subprocess.PIPE,
                    text=True,
                )
        counts = {}
        for key, process in processes.items():
            _, stderr = process.communicate()
            counts[key] = int(_COLLECTED.findall(stderr)[-1])
    per = {label: (counts[label, MANY] - counts[label, FEW]) / (MANY - FEW) for label, _, _ in runs}
    for label, value in per.items():
        print(f"{view} {label}: {value:,.0f} instructions per request")
    print(
        f"after / before: {per['after'] / per['before']:.4f}; tools/call / REST: "
        f"before {per['before'] / per['REST']:.3f}, after {per['after'] / per['REST']:.3f}"
    )


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main(*sys.argv[1:])
