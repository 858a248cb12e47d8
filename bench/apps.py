"""What MCP Apps cost (docs/apps.md): ``python -m bench.apps [counts|sizes]``.

**sizes**: each kind's page, raw and gzipped, and the bench group's ``tools/list`` in bytes
without and with the extension declared (no callgrind: a few seconds).

**counts** (the default):
In instructions, counted as :mod:`bench.instructions` counts a request (callgrind,
``(count of MANY - count of FEW) / (MANY - FEW)``, after a warm-up, ``gc.freeze()``,
``PYTHONHASHSEED=0``), through Django's test client, 2026-07-28 requests to the bench group:

* ``plain_call`` and ``declared_call``: ``tools/call`` of ``item_list`` without and with the
  ``io.modelcontextprotocol/ui`` extension declared;
* ``plain_list`` and ``declared_list``: ``tools/list``, the same two ways (the declared listing
  carries each tool's ``_meta.ui``).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bench import instructions, lib

KINDS = ("plain_call", "declared_call", "plain_list", "declared_list")
EXTENSION = "io.modelcontextprotocol/ui"
MODERN = "2026-07-28"
PAGES = Path(__file__).resolve().parent.parent / "mcp_bridge" / "static" / "mcp_bridge" / "apps"


def _poster() -> Callable[[str, dict, bool, str | None], dict]:
    """One 2026-07-28 request to the bench group (:func:`bench.lib.modern_poster`), declaring
    the extension when asked."""
    return lib.modern_poster(
        {"extensions": {EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}}
    )


def _senders() -> dict[str, Callable[[], None]]:
    post = _poster()

    def call(declares: bool) -> Callable[[], None]:
        def send() -> None:
            arguments = {"name": "item_list", "arguments": {"page": 2}}
            assert post("tools/call", arguments, declares, "item_list")["isError"] is False

        return send

    def listing(declares: bool) -> Callable[[], None]:
        def send() -> None:
            assert post("tools/list", {}, declares)["tools"]

        return send

    return {
        "plain_call": call(False),
        "declared_call": call(True),
        "plain_list": listing(False),
        "declared_list": listing(True),
    }


def _child(kind: str, n: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    instructions.measure(_senders(), kind, n)


def _start(kind: str, n: int, out_file: str) -> subprocess.Popen[str]:
    return lib.callgrind("bench.apps", ["--child", kind, n], out_file)


def page_sizes() -> list[list[str]]:
    return [
        [page.stem, f"{len(page.read_bytes()):,}", f"{len(gzip.compress(page.read_bytes(), 9)):,}"]
        for page in sorted(PAGES.glob("*.html"))
    ]


def sizes() -> str:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")
    import django

    django.setup()
    post = _poster()
    listed = [
        json.dumps(post("tools/list", {}, declares)["tools"], separators=(",", ":"))
        for declares in (False, True)
    ]
    rows = [
        ["tools/list, extension not declared", f"{len(listed[0]):,}"],
        ["tools/list, extension declared", f"{len(listed[1]):,}"],
        ["more", f"{(len(listed[1]) - len(listed[0])) / len(listed[0]) * 100:.2f} %"],
    ]
    return "\n\n".join(
        [
            lib.table("The pages", ["kind", "bytes", "gzipped (-9)"], page_sizes()),
            lib.table("The bench group's listing", ["", "bytes"], rows),
        ]
    )


def run(*kinds: str) -> str:
    """The ``counts`` mode: ``kinds`` (default: every kind of :data:`KINDS`), one count each."""
    kinds = kinds or KINDS
    counted = lib.per_request(_start, kinds, instructions.FEW, instructions.MANY)
    rows = [[kind, f"{counted[kind] / 1e3:,.0f}"] for kind in kinds]
    for declared, plain in (("declared_call", "plain_call"), ("declared_list", "plain_list")):
        if declared in counted and plain in counted:
            rows.append([f"{declared} / {plain}", f"{counted[declared] / counted[plain]:.4f}"])
    return lib.table("MCP Apps (callgrind, k instructions per request)", ["request", "k"], rows)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        _child(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1:2] == ["sizes"]:
        sizes()
    else:
        run(*sys.argv[2:])
