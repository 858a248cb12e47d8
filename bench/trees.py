"""Instructions per ``tools/call`` of two ``mcp_bridge`` trees, and per REST request, counted.

``PYTHONPATH=. bench/.venv/bin/python -m bench.trees <before-dir> <after-dir> [tiny|list]``

Each directory holds an ``mcp_bridge`` package (``git archive <commit> mcp_bridge | tar -x -C
<dir>``), put first on ``sys.path`` of its processes (:func:`use_tree`); the bench site, its
settings and this harness are this checkout's, the same for both. The count is
:mod:`bench.instructions`'s (callgrind, ``PYTHONHASHSEED=0``, Django's test client, both kinds
warmed up in every process), per request = (count after ``MANY`` requests - count after
``FEW``) / (``MANY - FEW``); the six processes run at once. ``bench.tasks trees`` counts the
2026-07-28 calls of the Tasks extension the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys

from bench import lib

FEW, MANY = 20, 100


def use_tree(root: str) -> None:
    """Put ``root``'s ``mcp_bridge`` first on ``sys.path`` and set Django up with the bench
    site's settings. Raises ``AssertionError`` when another ``mcp_bridge`` is imported."""
    sys.path.insert(0, root)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    import mcp_bridge

    assert mcp_bridge.__file__.startswith(root), mcp_bridge.__file__


def _child(root: str, view: str, kind: str, n: int) -> None:
    use_tree(root)
    senders = lib.in_process_senders(view)
    mcp, rest = senders["mcp"], senders["rest"]
    for _ in range(30):
        mcp()
        rest()
    send = mcp if kind == "mcp" else rest
    for _ in range(n):
        send()


def main(before: str, after: str, view: str = "list") -> None:
    runs = {
        "before": (os.path.abspath(before), "mcp"),
        "after": (os.path.abspath(after), "mcp"),
        "REST": (os.path.abspath(after), "rest"),
    }

    def start(label: str, n: int, out_file: str) -> subprocess.Popen[str]:
        root, kind = runs[label]
        return lib.callgrind("bench.trees", ["--child", root, view, kind, n], out_file)

    per = lib.per_request(start, runs, FEW, MANY)
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
