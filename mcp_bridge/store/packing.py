"""Parts of a stored build kept as pickled bytes until they are read.

A loaded build of a big group is mostly JSON that few requests read: each tool's schemas and
parameters, which only its own calls need (its first ``tools/list`` page is already encoded), and
the OpenRPC document, which only ``openrpc.json`` reads. Unpickled as dicts and lists, they are
hundreds of thousands of containers that a process holds from its first request and that
Python's garbage collector walks, all of them, in the collections that follow the load and in
every full collection after (a 5,000-operation group: ~140k containers of its ~220k). Kept as
one ``bytes`` object per instance, they cost a fraction of the memory, no collector time, and
one small unpickling on first read.

* :class:`PackedDocument`: one JSON document, unpacked by an explicit call.
* :data:`PACKED_FIELDS`: the fields of the build's dataclasses (a tool, a method, an
  operation's source) that leave a stored build packed. The store's pickler writes such an
  instance with :func:`reduce`; it is loaded as its class's variant (:data:`VARIANTS`), and the
  first read of any of those fields puts them back as ordinary attributes and the instance
  back in its own class: after that, reading one costs what it costs on a freshly built
  instance. The classes themselves know nothing of this: packing is the store's detail.
* :func:`sharing`: while the store pickles a build, the values that several instances hold
  (a component's schema in every tool that uses it, made one object by the store's sharing)
  go, once, into one :class:`SharedValues` that their bytes refer to, so that tools unpacked
  in a process share them as the build did (without it, a 1,000-operation group unpacked
  whole held three times what it held loaded).

The bytes are plain pickles: they hold JSON values and the build's own plain dataclasses,
never a view class (those are the store's persistent references; a method's problems, whose
``obj`` may be one, are not packed). The stored build is compressed as a whole, which
compresses these bytes too.
"""

from __future__ import annotations

import io
import pickle
import threading
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mcp_bridge.build.openapi import OperationSource
from mcp_bridge.build.openrpc import Method
from mcp_bridge.build.tools import Tool

#: The attribute of a loaded instance that holds its packed fields until one is read.
PACKED = "_packed"


class PackedDocument:
    """A JSON document kept as compressed pickle bytes until it is read (:meth:`unpacked`)."""

    __slots__ = ("data",)

    def __init__(self, document: dict[str, Any]) -> None:
        self.data = zlib.compress(pickle.dumps(document, protocol=pickle.HIGHEST_PROTOCOL), 1)

    def unpacked(self) -> dict[str, Any]:
        document: dict[str, Any] = pickle.loads(zlib.decompress(self.data))
        return document


class SharedValues:
    """The values that several packed instances of one stored build hold, each pickled once.

    Each shared dict or list is its own pickle, unpickled the first time an instance that
    holds it is unpacked, so that a call's first unpacking reads what its tool holds, not every
    value the build shares; the shared strings (keys and texts) are one pickle, read on the
    first unpacking. A value that holds another shared value refers to it, as the instances'
    bytes do (persistent ids: ``i >= 0`` the ``i``-th value, ``-1 - j`` the ``j``-th string).
    """

    __slots__ = ("_entries", "_lock", "_string_values", "_strings", "_values", "positions")

    def __init__(self, values: list[Any], strings: list[str]) -> None:
        positions = {id(value): i for i, value in enumerate(values)}
        string_positions = {id(text): j for j, text in enumerate(strings)}
        self._entries = [
            _pickled(value, positions, string_positions, root=value) for value in values
        ]
        self._strings = pickle.dumps(strings, protocol=pickle.HIGHEST_PROTOCOL)
        self._string_values: list[str] | None = None
        self._values: list[Any] = [None] * len(values)  # None: not unpickled yet
        # Re-entrant: unpickling a value unpickles the values it holds.
        self._lock = threading.RLock()
        #: While the build is pickled: the positions its instances' bytes refer to.
        self.positions = (positions, string_positions)

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        return None, {
            "_entries": self._entries,
            "_strings": self._strings,
            "_values": [None] * len(self._entries),
        }

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        for name, value in state[1].items():
            setattr(self, name, value)
        self._string_values = None
        self._lock = threading.RLock()

    def value(self, position: int) -> Any:
        """The shared value at ``position``, unpickled on first use (by one thread: two tools
        unpacked at once get the same object, as the build gave them)."""
        value = self._values[position]
        if value is None:
            with self._lock:
                value = self._values[position]
                if value is None:
                    entry = io.BytesIO(self._entries[position])
                    value = self._values[position] = _SharingUnpickler(entry, self).load()
        return value

    def string(self, position: int) -> str:
        strings = self._string_values
        if strings is None:
            with self._lock:
                strings = self._string_values
                if strings is None:
                    strings = self._string_values = pickle.loads(self._strings)
        return strings[position]


class _SharingPickler(pickle.Pickler):
    def __init__(
        self, file: Any, positions: dict[int, int], strings: dict[int, int], root: Any = None
    ) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.positions = positions
        self.strings = strings
        self.root = root  # a shared value pickled as itself, not as a reference to itself

    def persistent_id(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is str:
            position = self.strings.get(id(obj))
            return None if position is None else -1 - position
        if (kind is dict or kind is list) and obj is not self.root:
            return self.positions.get(id(obj))
        return None


def _pickled(value: Any, positions: dict[int, int], strings: dict[int, int], root: Any) -> bytes:
    buffer = io.BytesIO()
    _SharingPickler(buffer, positions, strings, root).dump(value)
    return buffer.getvalue()


class _SharingUnpickler(pickle.Unpickler):
    def __init__(self, file: Any, shared: SharedValues) -> None:
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid: Any) -> Any:
        return self.shared.string(-1 - pid) if pid < 0 else self.shared.value(pid)


#: While :func:`sharing` runs: the build's shared values.
_active: ContextVar[SharedValues | None] = ContextVar("mcp_bridge_packing", default=None)


def _shareable(value: Any) -> Iterator[Any]:
    """The dicts, lists and strings inside ``value`` (itself included), each once."""
    seen: set[int] = set()
    pending = [value]
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        kind = type(item)
        if kind is str:
            seen.add(id(item))
            yield item
            continue
        if kind is dict:
            children: Iterable[Any] = (*item, *item.values())
        elif kind is list or kind is tuple:
            children = item
        elif kind.__module__.startswith("mcp_bridge."):  # a parameter, say
            children = getattr(item, "__dict__", {}).values()
        else:
            continue
        seen.add(id(item))
        if kind is dict or kind is list:
            yield item
        pending.extend(children)


@contextmanager
def sharing(instances: Iterable[Any]) -> Iterator[None]:
    """While a build is pickled: every dict, list or string that the packed fields of more
    than one of ``instances`` hold is pickled once, in a :class:`SharedValues` that their
    packed bytes refer to."""
    holders: dict[int, int] = {}
    kept: dict[int, Any] = {}
    for instance in instances:
        fields = PACKED_FIELDS[packed_class(instance)]  # type: ignore[index]
        for value in _shareable(tuple(getattr(instance, n) for n in fields)):
            key = id(value)
            holders[key] = holders.get(key, 0) + 1
            kept[key] = value
    shared = [kept[key] for key, count in holders.items() if count > 1]
    token = _active.set(
        SharedValues(
            [value for value in shared if type(value) is not str],
            [value for value in shared if type(value) is str],
        )
    )
    try:
        yield
    finally:
        _active.reset(token)


#: The fields of the build's dataclasses that a stored build keeps packed: what only a call
#: reads (a tool's schemas, a method's arguments and result, an operation's OpenAPI text). A
#: method's problems are not packed: a ``Problem.obj`` may be a view class made at run time,
#: which only the store's own pickler can store.
PACKED_FIELDS: dict[type, tuple[str, ...]] = {
    Tool: ("input_schema", "output_schema", "result_schema", "generated_arguments"),
    Method: ("params", "result"),
    OperationSource: ("operation",),
}


def _variant(cls: type) -> type:
    """The class a stored instance of ``cls`` is loaded as: ``cls`` itself with a
    ``__getattr__`` that unpacks the packed fields on the first read of any of them, then gives
    the instance ``cls`` back (``__class__`` assignment).

    ``cls`` itself has no ``__getattr__``: with one, every attribute read of a tool would go
    through Python's slower lookup (about 3x per read, ~10k instructions per ``tools/call``),
    for the life of the process; an instance unpacked is an ordinary instance again.
    """
    return type(
        cls.__name__,
        (cls,),
        {
            "_unpacked_class": cls,
            "_packed_fields": PACKED_FIELDS[cls],
            "__module__": __name__,
            "__qualname__": f"packed {cls.__qualname__}",
            "__getattr__": _read_packed,
            "__eq__": _compare_unpacked,
            "__hash__": None,  # as the dataclasses themselves (eq without frozen)
            # Defined, so that pickle does not look it up through __getattr__ (an
            # AttributeError raised per instance: 45 ms of a 5,000-operation group's load).
            "__setstate__": _set_state,
        },
    )


def _set_state(self: Any, state: dict[str, Any]) -> None:
    self.__dict__.update(state)


def packed_class(obj: Any) -> type | None:
    """The class of :data:`PACKED_FIELDS` that ``obj`` is an instance (or a loaded variant) of,
    else ``None``."""
    kind = type(obj)
    return getattr(kind, "_unpacked_class", kind) if kind in _PACKED_KINDS else None


def reduce(obj: Any) -> tuple[Any, ...]:
    """How the store's pickler writes an instance of a class of :data:`PACKED_FIELDS`: its
    state (``__getstate__``, which leaves out what the class does not keep) with the packed
    fields replaced by their pickle, to be loaded as the class's variant. An instance loaded and
    never read is written as it was loaded."""
    cls = packed_class(obj)
    assert cls is not None
    state = dict(obj.__getstate__())
    if PACKED not in state:
        values = tuple(state.pop(name) for name in PACKED_FIELDS[cls])
        shared = _active.get()
        if shared is None:
            state[PACKED] = pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)
        else:
            state[PACKED] = (shared, _pickled(values, *shared.positions, root=None))
    return _new_packed, (cls,), state


def _new_packed(cls: type) -> Any:
    # Called by pickle with the stored class: the instance is made as its loaded variant.
    return object.__new__(VARIANTS[cls])


def _unpack(instance: Any) -> None:
    """Put ``instance``'s packed fields back as attributes, and its own class back."""
    attributes = instance.__dict__
    packed = attributes.get(PACKED)
    if packed is not None:
        if isinstance(packed, tuple):  # bytes that refer to the build's shared values
            shared, data = packed
            values = _SharingUnpickler(io.BytesIO(data), shared).load()
        else:
            values = pickle.loads(packed)
        # The fields first, the bytes dropped after: a thread reading another field meanwhile
        # finds it, or unpacks the same values again; a field set since the load (or by a
        # thread that unpacked first) is kept.
        for field, value in zip(instance._packed_fields, values, strict=True):
            attributes.setdefault(field, value)
        attributes.pop(PACKED, None)
    unpacked_class = getattr(type(instance), "_unpacked_class", None)
    if unpacked_class is not None:
        object.__setattr__(instance, "__class__", unpacked_class)


def _read_packed(self: Any, name: str) -> Any:
    # The packed variant's __getattr__, called only when the ordinary lookup fails: a packed
    # field of a loaded instance that nothing has read yet (or a missing attribute: still an
    # AttributeError).
    attributes = self.__dict__
    if PACKED in attributes and name in self._packed_fields:
        _unpack(self)
    if name in attributes:  # unpacked now, or by another thread since the lookup failed
        return attributes[name]
    raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def _compare_unpacked(self: Any, other: Any) -> Any:
    # The dataclass's __eq__ compares instances of one class only.
    _unpack(self)
    if packed_class(other) is not None:
        _unpack(other)
    return self == other


#: The loaded variant of each class of :data:`PACKED_FIELDS`.
VARIANTS: dict[type, type] = {cls: _variant(cls) for cls in PACKED_FIELDS}
_PACKED_KINDS = frozenset([*PACKED_FIELDS, *VARIANTS.values()])
