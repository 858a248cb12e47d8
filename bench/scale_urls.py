"""The URLconf of one generated API of ``bench/scale.py``, for benchmarks in a fresh process.

``BENCH_SCALE_SIZE`` (default 1000) picks the size; the group is ``scale<size>``.
"""

import os

from bench.scale import _build_module

_module = _build_module(int(os.environ.get("BENCH_SCALE_SIZE", "1000")))
api_patterns = _module.api_patterns
urlpatterns = _module.urlpatterns
