"""Stored builds are signed: nothing is unpickled unless its signature verifies.

A stored build is a pickle (mcp_bridge.store.codec), so whoever can write the store could run
code in every process that loads from it. Each case writes bytes into a real store (files,
LocMem and a real Redis, through ``configured_store``), forgets the tool sets as a new process
would, and shows that the group is built again (and answers), that the bad bytes are logged
once, and that a pickle that would run code never runs.
"""

from __future__ import annotations

import io
import logging
import pickle
import shutil
from pathlib import Path

import pytest
from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.management import CommandError, call_command

from mcp_bridge.checks import check_build_store
from mcp_bridge.store import backends, builds, codec, keys
from mcp_bridge.toolset import registry
from tests.mcp_client import McpClient
from tests.services import REDIS_URL
from tests.test_store import _forget, _never_built, configured_store  # noqa: F401 -- fixture

# Every test runs on each store of configured_store: files, LocMem and Redis.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("configured_store")]

#: Set when the pickle below is unpickled: what an attacker's code would do.
ran: list[str] = []


def _attack() -> str:
    ran.append("code ran")
    return "pwned"


class _Payload:
    def __reduce__(self):
        return (_attack, ())


def _stored() -> tuple[backends.BuildStore, str]:
    store = backends.get_build_store()
    assert store is not None
    return store, keys.build_key("catalog", None, None, registry.get_url_index()).name


def _rebuilt(monkeypatch, caplog) -> list[str]:
    """Load catalog as a new process, counting builds; the warnings logged."""
    _forget()
    builds._reported.clear()  # what this process logged already (once per key and problem)
    built = []
    build = registry._build
    monkeypatch.setattr(registry, "_build", lambda *a: built.append(1) or build(*a))
    with caplog.at_level(logging.WARNING, logger="mcp_bridge.store"):
        assert registry.get_toolset("catalog").by_name
        _forget()
        registry.get_toolset("catalog")  # the rebuilt one was stored: loaded now
    assert built == [1]
    assert McpClient(path="/mcp/catalog/").list_tools()
    return [r.getMessage() for r in caplog.records if r.name == "mcp_bridge.store"]


def test_a_tampered_build_is_not_loaded(monkeypatch, caplog):
    registry.get_toolset("catalog")
    store, name = _stored()
    data = bytearray(store.get(name))
    data[-10] ^= 0xFF  # one byte of the compressed pickle
    store.put(name, bytes(data))
    logged = _rebuilt(monkeypatch, caplog)
    assert len(logged) == 1 and "signature does not verify" in logged[0]


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "forged-signature"])
def test_a_foreign_pickle_is_never_unpickled(monkeypatch, caplog, signed):
    registry.get_toolset("catalog")
    store, name = _stored()
    evil = codec.compress(pickle.dumps((codec.FORMAT, _Payload())))
    store.put(name, codec.MAGIC + b"\0" * 32 + evil if signed else evil)
    ran.clear()
    logged = _rebuilt(monkeypatch, caplog)
    assert ran == []
    assert len(logged) == 1 and "cannot be read" in logged[0]


def test_a_build_signed_with_another_key_is_rebuilt_and_a_fallback_key_is_accepted(
    settings, monkeypatch, caplog
):
    settings.SECRET_KEY = "the-key-of-last-year-" * 3
    registry.get_toolset("catalog")
    settings.SECRET_KEY = "the-key-of-this-year-" * 3
    settings.SECRET_KEY_FALLBACKS = ["the-key-of-last-year-" * 3]
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    assert registry.get_toolset("catalog").by_name  # loaded: verified with the fallback
    monkeypatch.undo()
    settings.SECRET_KEY_FALLBACKS = []
    logged = _rebuilt(monkeypatch, caplog)
    assert len(logged) == 1 and "SECRET_KEY" in logged[0]


def test_a_signed_pickle_that_is_not_a_build_is_rebuilt(monkeypatch, caplog):
    registry.get_toolset("catalog")
    store, name = _stored()
    store.put(name, codec.sign(codec.compress(pickle.dumps((codec.FORMAT, {"not": "a build"})))))
    logged = _rebuilt(monkeypatch, caplog)
    assert len(logged) == 1 and "not a build" in logged[0] and "builtins.dict" in logged[0]


# --- What the cache itself would unpickle -------------------------------------------------------


class _WritesAFile:
    """A pickle that creates a file when it is unpickled (``shutil.copyfile``: no handle left
    open), as an attacker's would run a command."""

    def __init__(self, target: Path) -> None:
        self.target = target

    def __reduce__(self):
        return (shutil.copyfile, (__file__, str(self.target)))


def test_a_hostile_pickle_in_redis_never_runs(request, monkeypatch, caplog, tmp_path):
    """Written straight to the build's Redis key, as whoever can reach the Redis server could:
    Django's RedisCache would unpickle it in ``cache.get``, before any signature is checked."""
    if request.getfixturevalue("configured_store") != "redis":
        pytest.skip("the cache's own deserializer: Redis (files and LocMem are written raw)")
    import redis

    registry.get_toolset("catalog")
    _, name = _stored()
    cache = caches["builds"]
    client = redis.Redis.from_url(REDIS_URL)
    key = cache.make_key(f"mcp_bridge:build:{name}")
    assert client.exists(key)
    target = tmp_path / "created-by-the-pickle"
    client.set(key, pickle.dumps(_WritesAFile(target)))
    logged = _rebuilt(monkeypatch, caplog)
    assert not target.exists()
    assert len(logged) == 1 and "cannot be read" in logged[0] and name in logged[0]
    # Rebuilt and stored over it, raw: the signed bytes, not a pickle of them.
    assert client.get(key).startswith(codec.MAGIC)


@pytest.mark.parametrize(
    "backend",
    [
        "django.core.cache.backends.db.DatabaseCache",
        "django.core.cache.backends.filebased.FileBasedCache",
        "django.core.cache.backends.memcached.PyMemcacheCache",
        "django.core.cache.backends.memcached.PyLibMCCache",
        "tests.test_store_signing.UnknownCache",
    ],
)
def test_a_cache_that_unpickles_what_it_reads_is_refused(
    request, settings, monkeypatch, caplog, tmp_path, backend
):
    """A store no process can load from safely is a check error, and is not used at all: a
    process logs it once (naming the check) and builds, reading nothing from that cache."""
    if request.getfixturevalue("configured_store") != "files":
        pytest.skip("the store's own settings: once is enough")
    settings.CACHES = {
        **settings.CACHES,
        "unsafe": {"BACKEND": backend, "LOCATION": str(tmp_path / "cache")},
    }
    settings.MCP_BRIDGE = {
        **settings.MCP_BRIDGE,
        "BUILD_STORE": {"BACKEND": "cache", "CACHE_ALIAS": "unsafe"},
    }
    (problem,) = check_build_store()
    assert problem.id == "mcp_bridge.E320"
    assert "unpickle" in problem.msg and "RedisCache" in problem.hint
    with pytest.raises(CommandError, match="unpickle"):
        call_command("mcp_build", stdout=io.StringIO(), stderr=io.StringIO())
    built = []
    build = registry._build
    monkeypatch.setattr(registry, "_build", lambda *a: built.append(1) or build(*a))
    builds._failures.clear()
    with caplog.at_level(logging.WARNING, logger="mcp_bridge.store"):
        _forget()
        assert registry.get_toolset("catalog").by_name
        _forget()
        assert registry.get_toolset("catalog").by_name
    assert built == [1, 1]  # built by each "process", never stored nor loaded
    logged = [r.getMessage() for r in caplog.records if r.name == "mcp_bridge.store"]
    assert len(logged) == 1 and "mcp_bridge.E320" in logged[0]


class UnknownCache(BaseCache):
    """A cache backend the bridge does not know (django-redis's, say): it cannot tell whether
    its ``get`` unpickles what it finds."""

    def __init__(self, location: str, params: dict) -> None:
        super().__init__(params)
