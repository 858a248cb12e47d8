"""The cyclic garbage collector is off while a group is built, and back as it was after."""

from __future__ import annotations

import gc
import threading

import pytest

from mcp_bridge.base.garbage import collection_deferred
from mcp_bridge.toolset import registry


def test_off_within_and_back_after():
    assert gc.isenabled()
    with collection_deferred():
        assert not gc.isenabled()
        with collection_deferred():  # nested: still off, and not turned on by the inner end
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_back_on_when_the_build_raises():
    with pytest.raises(RuntimeError), collection_deferred():
        raise RuntimeError("the build failed")
    assert gc.isenabled()


def test_left_off_when_the_project_turned_it_off():
    gc.disable()
    try:
        with collection_deferred():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_builds_in_threads_share_the_switch():
    """The first build to start turns it off, the last to end turns it on."""
    started, release = threading.Event(), threading.Event()

    def other_build():
        with collection_deferred():
            started.set()
            release.wait(5)

    thread = threading.Thread(target=other_build)
    thread.start()
    started.wait(5)
    with collection_deferred():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other build is still running
    release.set()
    thread.join(5)
    assert gc.isenabled()


@pytest.mark.django_db
def test_a_real_build_runs_with_the_collector_off(monkeypatch):
    seen = []
    build = registry._build

    def observed(*args, **kwargs):
        seen.append(gc.isenabled())
        return build(*args, **kwargs)

    monkeypatch.setattr(registry, "_build", observed)
    registry.clear_cache()
    registry.build_toolset("catalog", None)
    assert seen == [False] and gc.isenabled()
