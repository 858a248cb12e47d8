"""Python's cyclic garbage collector, deferred while a group is built or loaded.

A build allocates hundreds of thousands of objects that stay alive until it ends (the OpenAPI
document, the serializers' fields, the tools' schemas). Each time the young generation fills,
the collector walks them, and the oldest generation's collections walk all of them again: on a
group of 1,000 operations that is a fifth to a quarter of the build's CPU, and it frees almost
nothing. :func:`collection_deferred` turns the collector off for the build and back on after
it, as it was (and so while a stored build's key is made and the build unpickled): nothing
else changes, reference counting frees what it always frees, and the
cycles left are collected by the next collection after the build.

Builds in several threads share one switch: the first to start turns the collector off (only if
it is on), the last to end turns it back on. A project that turns the collector off itself
during a build has it turned back on when the build ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_builds = 0
_turned_off = False


@contextmanager
def collection_deferred() -> Iterator[None]:
    """Within: the cyclic garbage collector is off (see the module docstring)."""
    global _builds, _turned_off
    with _lock:
        if _builds == 0 and gc.isenabled():
            gc.disable()
            _turned_off = True
        _builds += 1
    try:
        yield
    finally:
        with _lock:
            _builds -= 1
            if _builds == 0 and _turned_off:
                _turned_off = False
                gc.enable()
