"""A stored build keeps the cold parts of its tools packed (``mcp_bridge.store.packing``).

A loaded group answers its first ``tools/list`` from its encoded pages with every tool's
schemas, every method's arguments and every OpenAPI operation still one ``bytes`` object per
instance; a call unpacks its own tool only, to the very values the build made, and the values
several tools share stay one object each.
"""

from __future__ import annotations

import gc
import io
import pickle
import threading

import pytest
from django.core.management import call_command

from mcp_bridge.build.openapi import OperationSource
from mcp_bridge.build.openrpc import Method
from mcp_bridge.build.tools import Tool
from mcp_bridge.store import codec, packing
from mcp_bridge.toolset import registry
from tests.mcp_client import McpClient
from tests.test_store import _configure, _forget, _never_built

pytestmark = pytest.mark.django_db


def _parts(tool):
    """What keeps fields packed in a stored build: the tool, its method, its operation's source."""
    return (tool, tool.method, tool.method.source)


def _is_packed(instance) -> bool:
    attributes = vars(instance)
    return packing.PACKED in attributes and not any(
        name in attributes for name in packing.PACKED_FIELDS[packing.packed_class(instance)]
    )


def _stored_and_loaded(settings, tmp_path, monkeypatch, group):
    """``mcp_build`` of ``group``, then what a new process loads: (built, loaded)."""
    _configure(settings, tmp_path)
    call_command("mcp_build", group, stdout=io.StringIO())
    built = registry.get_toolset(group)
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    return built, registry.get_toolset(group)


def test_a_loaded_group_lists_with_every_tool_packed(settings, tmp_path, monkeypatch):
    built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "catalog")
    assert all(_is_packed(part) for tool in loaded.tools for part in _parts(tool))
    # Each packed field is absent from the instance, so nothing (not the collector either)
    # holds its dicts and lists.
    tool = loaded.tools[0]
    assert gc.get_referents(vars(tool)) and not any(
        type(obj) is dict and "properties" in obj for obj in gc.get_referents(vars(tool))
    )

    listed = McpClient(path="/mcp/catalog/").list_tools()

    assert [entry["name"] for entry in listed] == [t.name for t in built.tools]
    # The caller may use every tool: its page is the one mcp_build encoded, so no schema was
    # read. Only the tools whose permissions the listing asks about a request of their own
    # (mcp_bridge.toolcall.visibility) had their request planned, from their arguments and
    # operation.
    assert all(_is_packed(tool) for tool in loaded.tools)
    planned = {tool.name for tool in loaded.tools if tool._request_plan is not None}
    assert planned < {tool.name for tool in loaded.tools}
    for tool in loaded.tools:
        assert _is_packed(tool.method) is (tool.name not in planned)
        assert _is_packed(tool.method.source) is (tool.name not in planned)


def test_a_call_unpacks_its_own_tool_to_the_values_built(settings, tmp_path, monkeypatch):
    built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "catalog")

    result = McpClient(path="/mcp/catalog/").call("products_list", {"status": "active"})

    assert result["isError"] is False, result
    called = loaded.by_name["products_list"]
    assert not any(_is_packed(part) for part in _parts(called))
    assert [t.name for t in loaded.tools if not _is_packed(t)] == ["products_list"]
    original = built.by_name["products_list"]
    for name in packing.PACKED_FIELDS[Tool]:
        assert getattr(called, name) == getattr(original, name)
    assert called.method.params == original.method.params
    assert called.method.result == original.method.result
    assert called.method.source.operation == original.method.source.operation


def test_every_field_reads_back_as_built(settings, tmp_path, monkeypatch):
    """Equality and ``dataclasses.replace`` (a translation) read the packed fields too."""
    built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    for tool, original in zip(loaded.tools, built.tools, strict=True):
        assert tool.method == original.method
        assert tool.method.source == original.method.source
        for name in packing.PACKED_FIELDS[Tool]:
            assert getattr(tool, name) == getattr(original, name)
    translated = registry.get_toolset("ledger", language="de")
    assert translated is not loaded
    assert [t.input_schema for t in translated.tools]


def test_values_shared_by_several_tools_stay_shared_once_unpacked(settings, tmp_path, monkeypatch):
    _built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    first, second = loaded.by_name["ledger_retrieve"], loaded.by_name["ledger_update"]
    retrieved, updated = first.output_schema, second.output_schema
    # Both answer one ledger entry: the build made their schema one object, and so does
    # unpacking, however many tools hold it.
    assert retrieved == updated
    assert retrieved is updated


def test_a_misspelt_attribute_is_still_an_attribute_error(settings, tmp_path, monkeypatch):
    _built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    tool = loaded.tools[0]
    with pytest.raises(AttributeError, match="no attribute 'input_shema'"):
        tool.input_shema  # noqa: B018
    assert _is_packed(tool)  # a miss unpacks nothing


def test_a_loaded_build_stored_again_loads_the_same(settings, tmp_path, monkeypatch):
    """A loaded build whose tools nobody read is stored as it was loaded."""
    built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    index = registry.get_url_index()
    loaded.tools[0].input_schema  # noqa: B018  one tool unpacked, the others not
    again = codec.loads(codec.dumps(loaded, index), index)
    for tool, original in zip(again.tools, built.tools, strict=True):
        assert tool.input_schema == original.input_schema
        assert tool.method.params == original.method.params


def test_threads_reading_one_packed_tool_get_the_same_values(settings, tmp_path, monkeypatch):
    _built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "catalog")
    tool = loaded.by_name["products_search"]
    start = threading.Barrier(8)
    seen = []

    def read():
        start.wait()
        seen.append((tool.input_schema, tool.output_schema, tool.method.params))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and all(values == seen[0] for values in seen)
    assert not _is_packed(tool)


def test_shared_values_are_unpickled_one_at_a_time():
    """A tool's first unpacking reads the shared values it holds, not all of the build's."""
    string = {"type": "string"}
    pair = {"a": string, "b": string}
    source = packing.SharedValues([string, pair, {"type": "integer"}], ["type", "string"])
    restored = pickle.loads(pickle.dumps(source))

    assert restored.value(1) == pair
    assert restored.value(1)["a"] is restored.value(0)  # one object, as in the build
    assert restored._values[2] is None  # never asked for: still bytes
    assert restored.value(2) == {"type": "integer"}


def test_a_tool_pickled_outside_the_store_is_a_plain_tool(settings, tmp_path):
    """Packing is the store's detail: pickled outside it (``copy``, a cache), a tool is an
    ordinary pickle of an ordinary ``Tool``, with every field present."""
    _configure(settings, tmp_path)
    tool = registry.get_toolset("ledger").by_name["ledger_update"]
    restored = pickle.loads(pickle.dumps(tool))
    assert type(restored) is Tool and packing.PACKED not in vars(restored)
    assert all(name in vars(restored) for name in packing.PACKED_FIELDS[Tool])
    assert restored.input_schema == tool.input_schema
    assert restored.method == tool.method
    assert type(restored.method) is Method and packing.PACKED not in vars(restored.method)


def test_a_loaded_build_goes_to_the_oldest_generation_unwalked(settings, tmp_path, monkeypatch):
    """Loaded with the collector paused, the build's objects skip the young collections,
    which would walk them all inside the first requests (mcp_bridge.store.builds.loads)."""
    _built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    young = {id(obj) for obj in gc.get_objects(generation=0)}
    assert not any(id(part) in young for tool in loaded.tools for part in _parts(tool))


def test_loading_leaves_the_programs_frozen_objects_frozen(settings, tmp_path, monkeypatch):
    _configure(settings, tmp_path)
    call_command("mcp_build", "ledger", stdout=io.StringIO())
    _forget()
    monkeypatch.setattr(registry, "_build", _never_built)
    gc.freeze()  # what a pre-forking server does before fork()
    try:
        frozen = gc.get_freeze_count()
        registry.get_toolset("ledger")
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_a_field_set_before_any_read_is_kept(settings, tmp_path, monkeypatch):
    _built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    tool = loaded.by_name["ledger_update"]
    tool.output_schema = None
    assert tool.input_schema["type"] == "object"  # unpacks the others
    assert tool.output_schema is None


def test_a_field_another_thread_unpacked_meanwhile_is_found(settings, tmp_path, monkeypatch):
    """A thread whose lookup failed before another unpacked the tool still gets the field."""
    _built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    tool = loaded.by_name["ledger_update"]
    read_packed = type(tool).__getattr__  # where the other thread's failed lookup went
    schema = tool.input_schema  # this thread unpacked it meanwhile
    assert read_packed(tool, "input_schema") is schema


def test_an_unpacked_tool_is_of_its_own_class(settings, tmp_path, monkeypatch):
    """Loaded, a tool is its class's packed variant (whose __getattr__ unpacks); read, it is a
    plain Tool again, whose attribute reads take Python's fast path."""
    built, loaded = _stored_and_loaded(settings, tmp_path, monkeypatch, "ledger")
    tool = loaded.by_name["ledger_update"]
    assert type(tool) is packing.VARIANTS[Tool] and isinstance(tool, Tool)
    assert tool == built.by_name["ledger_update"]  # compared field by field, unpacked
    assert type(tool) is Tool and "__getattr__" not in vars(Tool)
    assert type(tool.method) is Method and type(tool.method.source) is OperationSource
