"""Profile ``tools/call`` and the REST request to the same view, in process, with pyinstrument.

``bench/.venv/bin/python -m bench.profile [tiny|list] [N]`` (``bash bench/run profile``):
runs N requests of each kind through Django's test client (the whole middleware stack
and handler, no network), prints the CPU time per request of each, and writes the
pyinstrument profile of the ``tools/call`` requests to ``bench/.out/profile-<view>.txt``
and ``.html``. The bridge's own frames are what is left of the tree once the view's
(``_view_wrapper`` under ``call_tool``) is taken out.
"""

from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.site.settings")

import django

django.setup()

from pyinstrument import Profiler

from bench import lib

CASES = lib.IN_PROCESS_CASES


def main(view: str = "tiny", n: int = 2000) -> None:
    senders = lib.in_process_senders(view)
    mcp, rest = senders["mcp"], senders["rest"]
    for _ in range(100):
        mcp()
        rest()
    rows = []
    for round_ in range(3):
        times = {}
        for label, send in (
            (("rest", rest), ("mcp", mcp)) if round_ % 2 == 0 else (("mcp", mcp), ("rest", rest))
        ):
            start = time.process_time()
            for _ in range(n):
                send()
            times[label] = (time.process_time() - start) / n
        rows.append(
            [
                round_ + 1,
                n,
                f"{times['rest'] * 1e6:.0f}",
                f"{times['mcp'] * 1e6:.0f}",
                f"{times['mcp'] / times['rest']:.3f}",
            ]
        )
    lib.table(
        f"In-process CPU time per request, {view} view (Django test client, no network)",
        ["round", "requests each", "REST µs", "MCP µs", "MCP/REST"],
        rows,
    )
    profiler = Profiler(interval=0.0005)
    profiler.start()
    for _ in range(n):
        mcp()
    profiler.stop()
    lib.OUT_DIR.mkdir(exist_ok=True)
    (lib.OUT_DIR / f"profile-{view}.txt").write_text(
        profiler.output_text(unicode=True, color=False, show_all=True)
    )
    (lib.OUT_DIR / f"profile-{view}.html").write_text(profiler.output_html())
    print(f"pyinstrument profile of {n} tools/call: {lib.OUT_DIR}/profile-{view}.txt (.html)")


if __name__ == "__main__":
    main(
        sys.argv[1] if len(sys.argv) > 1 else "tiny",
        int(sys.argv[2]) if len(sys.argv) > 2 else 2000,
    )
